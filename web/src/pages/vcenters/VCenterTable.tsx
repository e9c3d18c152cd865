import { useState } from 'react';
import { messageOf } from '../../api/errors';
import type { VCenter } from '../../api/types';
import { useDeleteVCenter } from '../../api/vcenters';
import { ConfirmModal } from '../../components/ConfirmModal';
import { VCenterRow } from './VCenterRow';

/** The saved vCenter connections with test and delete (the delete asks first); vCenters page and Settings. */
export function VCenterTable({ vcenters }: { vcenters: VCenter[] }) {
  const remove = useDeleteVCenter();
  const [doomed, setDoomed] = useState<VCenter | null>(null);
  const close = () => {
    setDoomed(null);
    remove.reset();
  };
  return (
    <>
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
            {vcenters.map((vc) => (
              <VCenterRow key={vc.id} vcenter={vc} onDelete={() => setDoomed(vc)} />
            ))}
          </tbody>
        </table>
      </div>
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
    </>
  );
}
