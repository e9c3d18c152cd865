import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useNavigate } from 'react-router';
import { useDeployments } from '../../api/deployments';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { RefreshButton } from '../storage/RefreshButton';
import { DeploymentCard } from './DeploymentCard';

/** Every deployment's desktop pool: size, datastores, health; recompose, grow, shrink and delete. */
export function DesktopPoolsPage() {
  const deployments = useDeployments();
  const navigate = useNavigate();
  const deploy = (
    <CdsButton onClick={() => void navigate('/deploy')}>
      <CdsIcon shape="plus" /> Deploy a pool
    </CdsButton>
  );
  return (
    <>
      <PageHeader
        title="Desktop pools"
        subtitle="Each deployment's pool with its datastores, size and health; recompose, grow, shrink or delete it."
        actions={
          <>
            <RefreshButton query={deployments} />
            {deploy}
          </>
        }
      />
      {deployments.isPending && <Loading label="Reading the deployments" />}
      {deployments.isError && (
        <ErrorState title="Could not read the deployments" error={deployments.error} onRetry={() => void deployments.refetch()} />
      )}
      {deployments.isSuccess && deployments.data.length === 0 && (
        <div className="empty-state" data-testid="pools-empty">
          <CdsIcon shape="vm" size="xl" />
          <p cds-text="section">No desktop pool yet</p>
          <p cds-text="secondary">The deployment wizard places the appliances, the NFS datastore and the desktops.</p>
          {deploy}
        </div>
      )}
      {deployments.isSuccess && deployments.data.length > 0 && (
        <div className="storage-stack">
          {deployments.data.map((d) => (
            <DeploymentCard key={d.id} deployment={d} />
          ))}
        </div>
      )}
    </>
  );
}
