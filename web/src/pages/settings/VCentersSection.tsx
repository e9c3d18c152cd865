import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../../api/errors';
import type { VCenter } from '../../api/types';
import { useDeleteVCenter, useVCenters } from '../../api/vcenters';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { VCenterRow } from '../vcenters/VCenterRow';

/** The vCenter connections, as on the vCenters page (test, delete; connecting a new one is in Deploy). */
export function VCentersSection() {
  const vcenters = useVCenters();
  const remove = useDeleteVCenter();
  const [doomed, setDoomed] = useState<VCenter | null>(null);
  const close = () => {
    setDoomed(null);
    remove.reset();
  };
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
          onCancel={close}
          onConfirm={() => remove.mutate(doomed.id, { onSuccess: close })}
        >
          arcvsa forgets the connection to <strong>{doomed.host}</strong> and its stored credentials. Nothing changes in
          vCenter itself.
        </ConfirmModal>
      )}
    </section>
  );
}
