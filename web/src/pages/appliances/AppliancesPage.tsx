import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useNavigate } from 'react-router';
import { useDeployments } from '../../api/deployments';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { RefreshButton } from '../storage/RefreshButton';
import { FleetSection } from './FleetSection';
import { ThisAppliance } from './ThisAppliance';
import { useThisAppliance } from './appliancesApi';

/** The fleet: every deployment's appliances with health, version, pool state and alerts; and this one. */
export function AppliancesPage() {
  const deployments = useDeployments();
  const self = useThisAppliance();
  const navigate = useNavigate();
  const withFleet = deployments.data?.filter((d) => d.plan.fleet) ?? [];
  return (
    <>
      <PageHeader
        title="Appliances"
        subtitle="Every storage appliance arcvsa deployed, asked through its own api: health, version, pool state and alerts."
        actions={<RefreshButton query={deployments} />}
      />
      {self.isSuccess && <ThisAppliance info={self.data} />}
      {self.isError && <ErrorState title="Could not read this appliance" error={self.error} onRetry={() => void self.refetch()} />}
      {deployments.isPending && <Loading label="Reading the deployments" />}
      {deployments.isError && (
        <ErrorState title="Could not read the deployments" error={deployments.error} onRetry={() => void deployments.refetch()} />
      )}
      {deployments.isSuccess && withFleet.length === 0 && (
        <div className="empty-state" data-testid="fleet-empty">
          <CdsIcon shape="host" size="xl" />
          <p cds-text="section">No appliance deployed yet</p>
          <p cds-text="secondary">
            {deployments.data.length === 0
              ? 'The deployment wizard places one appliance per ESXi host.'
              : deployments.data.length === 1
                ? 'The one deployment here places no appliance of its own.'
                : `The ${deployments.data.length} deployments here place no appliance of their own.`}
          </p>
          <CdsButton action="outline" onClick={() => void navigate('/deploy')}>
            Open the deployment wizard
          </CdsButton>
        </div>
      )}
      {withFleet.length > 0 && (
        <div className="storage-stack">
          {withFleet.map((d) => (
            <FleetSection key={d.id} deployment={d} />
          ))}
        </div>
      )}
    </>
  );
}
