import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import type { Deployment } from '../../api/deployments';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { TableSection } from '../../components/TableSection';
import { ApplianceRow } from './ApplianceRow';
import { RollingUpgradeModal } from './RollingUpgradeModal';
import { useDeploymentAppliances } from './appliancesApi';

/** The appliances of one deployment, each asked through the server (a few seconds at most each). */
export function FleetSection({ deployment }: { deployment: Deployment }) {
  const fleet = useDeploymentAppliances(deployment.id);
  const [rolling, setRolling] = useState(false);
  const count = deployment.plan.fleet?.appliances.length ?? 0;
  if (fleet.isPending) return <Loading label={`Asking the ${count} appliances of ${deployment.name}`} />;
  if (fleet.isError) {
    return <ErrorState title={`Could not ask the appliances of ${deployment.name}`} error={fleet.error} onRetry={() => void fleet.refetch()} />;
  }
  return (
    <>
    {rolling && (
      <RollingUpgradeModal
        deployment={deployment}
        onClose={() => {
          setRolling(false);
          void fleet.refetch(); // their versions, as the roll left them
        }}
      />
    )}
    <TableSection
      actions={
        <CdsButton size="sm" action="outline" onClick={() => setRolling(true)} aria-label={`Upgrade the appliances of ${deployment.name}`}>
          Upgrade
        </CdsButton>
      }
      id={`fleet-${deployment.id}`}
      title={`Deployment ${deployment.name}`}
      count={fleet.data.length}
      variant="storage-section"
      testId="fleet-table"
      head={
        <>
          <th scope="col">Appliance</th>
          <th scope="col">Host</th>
          <th scope="col">Address</th>
          <th scope="col">Health</th>
          <th scope="col">Version</th>
          <th scope="col">Pool</th>
          <th scope="col">Alerts</th>
        </>
      }
    >
      {fleet.data.map((a) => (
        <ApplianceRow key={a.name} appliance={a} />
      ))}
    </TableSection>
    </>
  );
}
