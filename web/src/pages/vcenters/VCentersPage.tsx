import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { Link, useNavigate } from 'react-router';
import { useVCenters } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { VCenterTable } from './VCenterTable';

export function VCentersPage() {
  const navigate = useNavigate();
  const vcenters = useVCenters();


  return (
    <>
      <PageHeader
        title="vCenters"
        subtitle="The vCenter Server connections arcvsa uses to read inventory and deploy appliances."
        actions={
          <CdsButton onClick={() => navigate('/deploy')}>
            <CdsIcon shape="plus" /> Connect a vCenter
          </CdsButton>
        }
      />
      {vcenters.isPending && <Loading label="Loading vCenters" />}
      {vcenters.isError && (
        <ErrorState title="Could not load the vCenters" error={vcenters.error} onRetry={() => void vcenters.refetch()} />
      )}
      {vcenters.isSuccess && vcenters.data.length === 0 && (
        <div className="empty-state">
          <CdsIcon shape="vmw-app" size="xl" />
          <p cds-text="section">No vCenter connected yet</p>
          <p cds-text="secondary">Connect one to browse its clusters, hosts and datastores.</p>
          <Link to="/deploy/vcenter">Connect to vCenter</Link>
        </div>
      )}
      {vcenters.isSuccess && vcenters.data.length > 0 && <VCenterTable vcenters={vcenters.data} />}
    </>
  );
}
