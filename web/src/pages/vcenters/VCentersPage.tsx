import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { messageOf } from '../../api/errors';
import type { VCenter } from '../../api/types';
import { useDeleteVCenter, useVCenters } from '../../api/vcenters';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { VCenterRow } from './VCenterRow';

export function VCentersPage() {
  const navigate = useNavigate();
  const vcenters = useVCenters();
  const remove = useDeleteVCenter();
  const [doomed, setDoomed] = useState<VCenter | null>(null);

  const closeModal = () => {
    setDoomed(null);
    remove.reset();
  };

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
      {vcenters.isSuccess && vcenters.data.length > 0 && (
        <div className="table-wrap">
          <table cds-table="border:outside border:row" className="data-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Address</th>
                <th>User</th>
                <th>Certificate</th>
                <th>Added</th>
                <th>Status</th>
                <th className="col-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {vcenters.data.map((vc) => (
                <VCenterRow key={vc.id} vcenter={vc} onDelete={() => setDoomed(vc)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {doomed && (
        <ConfirmModal
          title={`Delete ${doomed.name}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.isError ? messageOf(remove.error) : null}
          onCancel={closeModal}
          onConfirm={() => remove.mutate(doomed.id, { onSuccess: closeModal })}
        >
          arcvsa forgets the connection to <strong>{doomed.host}</strong> and its stored credentials. Nothing changes
          in vCenter itself.
        </ConfirmModal>
      )}
    </>
  );
}
