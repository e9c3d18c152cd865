import { Link } from 'react-router';
import { useDeployment } from '../api/deployments';

/** Fleet › deployment › appliance: where a storage page shown through the manager sits. */
export function ApplianceCrumbs({ deployment, name }: { deployment: number; name: string }) {
  const row = useDeployment(deployment);
  return (
    <>
      <Link to="/fleet">Fleet</Link>
      <span aria-hidden="true"> › </span>
      <span>{row.data?.name ?? `Deployment ${deployment}`}</span>
      <span aria-hidden="true"> › </span>
      <span data-testid="scope-appliance">{name}</span>
    </>
  );
}
