import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { messageOf } from '../../api/errors';
import { type ZfsPoolHealth, useExportPool, useNfs } from '../../api/storage';
import { onPool } from './poolModel';
import { StorageLink } from '../../components/StorageLink';

/**
 * Exporting takes a pool off this appliance (e.g. before its LUNs move to another one). The api refuses while
 * an NFS export serves one of its datasets, so those are listed first and the button waits for them to go.
 */
export function ExportPoolModal({ pool, onClose }: { pool: ZfsPoolHealth; onClose: () => void }) {
  const exportPool = useExportPool();
  const nfs = useNfs();
  const blocking = nfs.data?.exports.filter((e) => onPool(pool.name, e.dataset)) ?? [];

  return (
    <CdsModal aria-labelledby="export-pool-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="export-pool-title" cds-text="title">
          Export pool {pool.name}?
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <div className="destroy-form">
          <p>
            Every dataset of {pool.name} is unmounted and its LUNs are released; nothing on them is lost.{' '}
            <strong>Its datastores go offline for the ESXi hosts</strong> (NFS and iSCSI alike) until the pool is
            imported again, here or on another appliance (Import pool).
          </p>
          {blocking.length > 0 && (
            <div data-testid="blocking-exports">
              <p className="text-danger">
                These NFS exports serve datasets of {pool.name}: unmount the datastores in vSphere, then{' '}
                <StorageLink to="/storage/exports">delete the exports</StorageLink> first.
              </p>
              <ul className="doomed-list">
                {blocking.map((e) => (
                  <li key={e.export_id}>
                    <code>{e.path}</code> <span className="muted">(NFS {e.protocol} to {e.clients.join(', ')})</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {nfs.isError && <p className="muted">The NFS exports could not be read: {messageOf(nfs.error)}</p>}
          {exportPool.isError && (
            <p className="text-danger" role="alert">
              {messageOf(exportPool.error)}
            </p>
          )}
        </div>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={exportPool.isPending}>
            Cancel
          </CdsButton>
          <CdsButton
            status="danger"
            onClick={() => exportPool.mutate(pool.name, { onSuccess: onClose })}
            disabled={exportPool.isPending || blocking.length > 0}
            loadingState={exportPool.isPending ? 'loading' : 'default'}
          >
            Export {pool.name}
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
