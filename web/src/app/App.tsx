import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from '../api/errors';
import { LoginPage } from '../pages/login/LoginPage';
import { VCentersPage } from '../pages/vcenters/VCentersPage';
import { DeployPage } from '../pages/deploy/DeployPage';
import { InventoryPage } from '../pages/inventory/InventoryPage';
import { DatasetsPage } from '../pages/storage/DatasetsPage';
import { DisksPage } from '../pages/storage/DisksPage';
import { ExportsPage } from '../pages/storage/ExportsPage';
import { IscsiPage } from '../pages/storage/IscsiPage';
import { PoolsPage } from '../pages/storage/PoolsPage';
import { StorageDashboardPage } from '../pages/storage/StorageDashboardPage';
import { TuningPage } from '../pages/storage/TuningPage';
import { AppShell } from './AppShell';
import { RequireAuth } from './RequireAuth';
import { SessionWatcher } from './SessionWatcher';

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
          <Route path="/login" element={<LoginPage />} />
          <Route
            element={
              <RequireAuth>
                <AppShell />
              </RequireAuth>
            }
          >
            <Route index element={<Navigate to="/vcenters" replace />} />
            <Route path="/vcenters" element={<VCentersPage />} />
            <Route path="/vcenters/:id/inventory" element={<InventoryPage />} />
            <Route path="/deploy" element={<DeployPage />} />
            <Route path="/storage" element={<StorageDashboardPage />} />
            <Route path="/storage/disks" element={<DisksPage />} />
            <Route path="/storage/pools" element={<PoolsPage />} />
            <Route path="/storage/datasets" element={<DatasetsPage />} />
            <Route path="/storage/exports" element={<ExportsPage />} />
            <Route path="/storage/iscsi" element={<IscsiPage />} />
            <Route path="/storage/tuning" element={<TuningPage />} />
            <Route path="*" element={<Navigate to="/vcenters" replace />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
