import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type Target, useDeleteTarget, useTargets } from '../../api/storage';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { RefreshButton } from './RefreshButton';
import { TargetForm } from './TargetForm';
import { TargetTable } from './TargetTable';

export function IscsiPage() {
  const targets = useTargets();
  const remove = useDeleteTarget();
  const [adding, setAdding] = useState(false);
  const [doomed, setDoomed] = useState<Target | null>(null);
  const closeRemove = () => {
    setDoomed(null);
    remove.reset();
  };

  return (
    <>
      <PageHeader
        title="iSCSI targets"
        subtitle="Block LUNs on zvols for ESXi's software iSCSI adapter, with VAAI offloads and optional CHAP."
        actions={
          <>
            <RefreshButton query={targets} />
            <CdsButton onClick={() => setAdding(true)} disabled={adding}>
              <CdsIcon shape="plus" /> Add target
            </CdsButton>
          </>
        }
      />
      {adding && <TargetForm onDone={() => setAdding(false)} />}
      {targets.isPending && <Loading label="Reading the iSCSI targets" />}
      {targets.isError && (
        <ErrorState title="Could not read the iSCSI targets" error={targets.error} onRetry={() => void targets.refetch()} />
      )}
      {targets.isSuccess && targets.data.length === 0 && !adding && (
        <div className="empty-state">
          <CdsIcon shape="storage-adapter" size="xl" />
          <p cds-text="section">No iSCSI target yet — put a LUN on a zvol</p>
          <p cds-text="secondary">NFS datastores need none; use iSCSI where a VMFS datastore is wanted.</p>
          <CdsButton action="outline" onClick={() => setAdding(true)}>
            Add target
          </CdsButton>
        </div>
      )}
      {targets.isSuccess && targets.data.length > 0 && <TargetTable targets={targets.data} onRemove={setDoomed} />}
      {doomed && (
        <ConfirmModal
          title={`Remove target ${doomed.iqn}?`}
          confirmLabel="Remove target"
          busy={remove.isPending}
          error={remove.isError ? messageOf(remove.error) : null}
          onCancel={closeRemove}
          onConfirm={() => remove.mutate(doomed.iqn, { onSuccess: closeRemove })}
        >
          The initiators <strong>{doomed.initiators.join(', ')}</strong> lose its LUN: a VMFS datastore on it goes
          offline. The zvol behind it ({doomed.luns.join(', ')}) and its data stay.
        </ConfirmModal>
      )}
    </>
  );
}
