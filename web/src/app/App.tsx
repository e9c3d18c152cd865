import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiError } from '../api/errors';
import { LoginPage } from '../pages/login/LoginPage';
import { VCentersPage } from '../pages/vcenters/VCentersPage';
import { DeployPage } from '../pages/deploy/DeployPage';
import { InventoryPage } from '../pages/inventory/InventoryPage';
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
            <Route path="*" element={<Navigate to="/vcenters" replace />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
