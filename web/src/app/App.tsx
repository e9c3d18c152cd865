import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from '../api/errors';
import { AppShell } from './AppShell';
import { RequireAuth } from './RequireAuth';
import { SessionWatcher } from './SessionWatcher';
import { PageOutlet } from './PageOutlet';
import { ApplianceStorage } from './ApplianceStorage';
import {
  APPLIANCE_STORAGE,
  AppliancesPage,
  DesktopPoolsPage,
  FleetPage,
  InventoryPage,
  LoginPage,
  STORAGE_PAGES,
  SettingsPage,
  VCentersPage,
  WizardPage,
  preloadPage,
} from './pages';
import { Loading } from '../components/Loading';

// The page's chunk loads alongside the session check rather than after it.
preloadPage(window.location.pathname);

// The same pages serve this machine's storage (/storage) and an appliance's through the manager.
const storagePages = STORAGE_PAGES.map(([path, Page]) =>
  path ? (
    <Route key={path} path={path} element={<Page />} />
  ) : (
    <Route key="index" index element={<Page />} />
  ),
);

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // vCenter round trips are slow and a 4xx will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

// The api answers unknown paths with index.html, so client routes survive a reload.
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <SessionWatcher />
        <Routes>
          <Route
            path="/login"
            element={
              <Suspense fallback={<Loading label="Loading" fullPage />}>
                <LoginPage />
              </Suspense>
            }
          />
          <Route
            element={
              <RequireAuth>
                <AppShell />
              </RequireAuth>
            }
          >
            <Route element={<PageOutlet />}>
              <Route index element={<Navigate to="/vcenters" replace />} />
              <Route path="/vcenters" element={<VCentersPage />} />
              <Route path="/vcenters/:id/inventory" element={<InventoryPage />} />
              <Route path="/deploy" element={<WizardPage />} />
              <Route path="/deploy/:step" element={<WizardPage />} />
              <Route path="/pools" element={<DesktopPoolsPage />} />
              <Route path="/fleet" element={<FleetPage />} />
              <Route path="/appliances" element={<AppliancesPage />} />
              <Route path="/settings" element={<SettingsPage />} />
              <Route path="/storage">{storagePages}</Route>
              <Route path={APPLIANCE_STORAGE} element={<ApplianceStorage />}>
                {storagePages}
              </Route>
            </Route>
            <Route path="*" element={<Navigate to="/vcenters" replace />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
