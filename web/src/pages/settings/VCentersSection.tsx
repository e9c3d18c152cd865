import { CdsIcon } from '@cds/react/icon';
import { Link } from 'react-router';
import { useVCenters } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { VCenterTable } from '../vcenters/VCenterTable';

/** The vCenter connections, as on the vCenters page (test, delete; connecting a new one is in Deploy). */
export function VCentersSection() {
  const vcenters = useVCenters();
  return (
    <section className="card storage-section" aria-labelledby="settings-vcenters-title" data-testid="settings-vcenters">
      <div className="section-head">
        <h2 id="settings-vcenters-title" cds-text="section">
          vCenter connections
        </h2>
        <div className="section-actions">
          <Link to="/deploy">
            <CdsIcon shape="plus" /> Connect a vCenter
          </Link>
        </div>
      </div>
      {vcenters.isPending && <Loading label="Loading vCenters" />}
      {vcenters.isError && <ErrorState title="Could not load the vCenters" error={vcenters.error} onRetry={() => void vcenters.refetch()} />}
      {vcenters.isSuccess && vcenters.data.length === 0 && <p className="muted">No vCenter connected yet.</p>}
      {vcenters.isSuccess && vcenters.data.length > 0 && <VCenterTable vcenters={vcenters.data} />}
    </section>
  );
}
