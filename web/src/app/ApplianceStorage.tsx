import { Navigate, Outlet, useParams } from 'react-router';
import { ApplianceScopeProvider } from '../api/scope';

/**
 * An appliance's storage pages on the fleet manager (/fleet/{deployment}/{appliance}/storage/...): the
 * same pages as on the appliance itself, each call passed on to it by the manager.
 */
export function ApplianceStorage() {
  const { deployment, appliance } = useParams();
  const id = Number(deployment);
  if (!Number.isInteger(id) || id < 1 || !appliance) return <Navigate to="/fleet" replace />;
  return (
    <ApplianceScopeProvider deployment={id} name={appliance}>
      <Outlet />
    </ApplianceScopeProvider>
  );
}
