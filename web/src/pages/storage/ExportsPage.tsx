import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ExportView, useDeleteExport, useNfs } from '../../api/storage';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { ExportForm } from './ExportForm';
import { ExportTable } from './ExportTable';
import { NfsBackendCard } from './NfsBackendCard';
import { RefreshButton } from './RefreshButton';

type Editing = { kind: 'add' } | { kind: 'edit'; export: ExportView } | null;

export function ExportsPage() {
  const nfs = useNfs();
  const remove = useDeleteExport();
  const [editing, setEditing] = useState<Editing>(null);
  const [doomed, setDoomed] = useState<ExportView | null>(null);

  const closeRemove = () => {
    setDoomed(null);
    remove.reset();
  };

  return (
    <>
      <PageHeader
        title="NFS exports"
        subtitle="Datasets exported to the ESXi hosts as NFS datastores, over NFS 3 or 4.1."
        actions={
          <>
            <RefreshButton query={nfs} />
            <CdsButton onClick={() => setEditing({ kind: 'add' })} disabled={editing !== null}>
              <CdsIcon shape="plus" /> Add export
            </CdsButton>
          </>
        }
      />
      {nfs.isPending && <Loading label="Reading the NFS exports" />}
      {nfs.isError && <ErrorState title="Could not read the NFS exports" error={nfs.error} onRetry={() => void nfs.refetch()} />}
      {nfs.isSuccess && (
        <>
          <NfsBackendCard state={nfs.data} />
          {editing && (
            <ExportForm
              key={editing.kind === 'edit' ? editing.export.export_id : 'add'}
              editing={editing.kind === 'edit' ? editing.export : null}
              onDone={() => setEditing(null)}
            />
          )}
          {nfs.data.exports.length === 0 && !editing ? (
            <div className="empty-state">
              <CdsIcon shape="share" size="xl" />
              <p cds-text="section">No export yet — export a dataset to your ESXi hosts</p>
              <p cds-text="secondary">Each export becomes an NFS datastore the listed hosts can mount.</p>
              <CdsButton action="outline" onClick={() => setEditing({ kind: 'add' })}>
                Add export
              </CdsButton>
            </div>
          ) : (
            nfs.data.exports.length > 0 && (
              <ExportTable
                exports={nfs.data.exports}
                onEdit={(e) => setEditing({ kind: 'edit', export: e })}
                onRemove={setDoomed}
              />
            )
          )}
        </>
      )}
      {doomed && (
        <ConfirmModal
          title={`Remove the export of ${doomed.dataset}?`}
          confirmLabel="Remove export"
          busy={remove.isPending}
          error={remove.isError ? messageOf(remove.error) : null}
          onCancel={closeRemove}
          onConfirm={() => remove.mutate(doomed.export_id, { onSuccess: closeRemove })}
        >
          The hosts <strong>{doomed.clients.join(', ')}</strong> lose the NFS {doomed.protocol} datastore at{' '}
          <code>{doomed.path}</code>: virtual machines running from it stop. The dataset and its data stay.
        </ConfirmModal>
      )}
    </>
  );
}
