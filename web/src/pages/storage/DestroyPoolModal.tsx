import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ZfsPoolHealth, useDatasets, useDestroyPool, useNfs, useTargets } from '../../api/storage';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { leaves, onPool } from './poolModel';

/**
 * Destroying a pool loses every dataset, zvol and snapshot on it: the dialog names them and asks for the
 * pool's name typed out, so a slip of the mouse destroys nothing.
 */
export function DestroyPoolModal({ pool, onClose }: { pool: ZfsPoolHealth; onClose: () => void }) {
  const destroy = useDestroyPool();
  // Not read again once the destroy is sent: the pool (and so its datasets) is going or gone.
  const datasets = useDatasets(destroy.isPending || destroy.isSuccess ? null : pool.name);
  const [typed, setTyped] = useState('');
  const children = datasets.data?.filter((d) => d.name !== pool.name) ?? [];
  const used = datasets.data?.find((d) => d.name === pool.name)?.used;
  const disks = [...leaves(pool, 'data'), ...leaves(pool, 'log'), ...leaves(pool, 'cache')];
  const exports = useNfs().data?.exports.filter((e) => onPool(pool.name, e.dataset)) ?? [];
  const targets =
    useTargets().data?.filter((t) => t.luns.some((l) => onPool(pool.name, l.replace(/^\/dev\/zvol\//, '')))) ?? [];

  const confirm = () => {
    if (typed === pool.name) destroy.mutate(pool.name, { onSuccess: onClose });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm();
  };

  return (
    <CdsModal aria-labelledby="destroy-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="destroy-title" cds-text="title">
          Destroy pool {pool.name}?
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form className="destroy-form" onSubmit={submit} noValidate>
          <p>
            <strong>Everything on {pool.name} is lost</strong>
            {used !== undefined && <> ({formatBytes(used)} of data)</>}: every dataset, zvol and snapshot, and the
            iSCSI LUNs they back.
          </p>
          {datasets.isSuccess && children.length > 0 && (
            <div>
              <p className="muted">Datasets and zvols destroyed with it:</p>
              <ul className="doomed-list" data-testid="doomed-datasets">
                {children.map((d) => (
                  <li key={d.name}>
                    <code>{d.name}</code> <span className="muted">({formatBytes(d.used)})</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {datasets.isSuccess && children.length === 0 && <p className="muted">The pool holds no dataset yet.</p>}
          {exports.length > 0 && (
            <div role="alert">
              <p className="text-danger">
                NFS still serves datastores from this pool: delete these exports first (ESXi hosts would lose them).
              </p>
              <ul className="doomed-list" data-testid="doomed-exports">
                {exports.map((e) => (
                  <li key={e.export_id}>
                    <code>{e.path}</code> <span className="muted">(NFS {e.protocol} to {e.clients.join(', ')})</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {targets.length > 0 && (
            <div>
              <p className="muted">iSCSI targets whose LUN goes:</p>
              <ul className="doomed-list" data-testid="doomed-targets">
                {targets.map((t) => (
                  <li key={t.iqn}>
                    <code>{t.iqn}</code>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {datasets.isError && <p className="muted">Its datasets could not be listed: {messageOf(datasets.error)}</p>}
          <p className="muted" data-testid="disks-freed">
            Its {disks.length} {disks.length === 1 ? 'disk is' : 'disks are'} cleared of the pool's labels and{' '}
            {disks.length === 1 ? 'becomes' : 'become'} free for a new pool.
          </p>
          <TextField label={`Type ${pool.name} to confirm`} name="confirm" value={typed} onChange={setTyped} autoComplete="off" />
          {destroy.isError && (
            <p className="text-danger" role="alert">
              {messageOf(destroy.error)}
            </p>
          )}
        </form>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={destroy.isPending}>
            Cancel
          </CdsButton>
          <CdsButton
            status="danger"
            onClick={confirm}
            disabled={typed !== pool.name || exports.length > 0 || destroy.isPending}
            loadingState={destroy.isPending ? 'loading' : 'default'}
          >
            Destroy {pool.name}
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
