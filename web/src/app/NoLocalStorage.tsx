import { CdsIcon } from '@cds/react/icon';
import { Link } from 'react-router';
import { PageHeader } from '../components/PageHeader';

/** What a storage page shows on a machine without storage of its own (the fleet manager): why, and where to go. */
export function NoLocalStorage({ reason }: { reason: string }) {
  return (
    <>
      <PageHeader title="Storage" subtitle="Disks, pools, datasets and exports of an appliance." />
      <div className="empty-state" data-testid="no-local-storage" role="status">
        <CdsIcon shape="storage" size="xl" />
        <p cds-text="section">No storage on this machine</p>
        <p cds-text="secondary">{reason}</p>
        <p>
          <Link to="/appliances">Go to Appliances</Link>
        </p>
      </div>
    </>
  );
}
