import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type Backend, type NfsState, useSetBackend } from '../../api/storage';
import { ConfirmModal } from '../../components/ConfirmModal';

const NAMES: Record<Backend, { name: string; about: string }> = {
  ganesha: { name: 'NFS-Ganesha', about: 'a user-space server that counts I/O per export (the dashboard’s per-datastore figures)' },
  knfsd: { name: 'Kernel NFS server', about: 'the Linux kernel’s own server (knfsd), which counts I/O for the whole server only' },
};

/** Which NFS server serves the exports, and the switch to the other one. */
export function NfsBackendCard({ state }: { state: NfsState }) {
  const change = useSetBackend();
  const [asking, setAsking] = useState(false);
  const other: Backend = state.backend === 'ganesha' ? 'knfsd' : 'ganesha';
  const close = () => {
    setAsking(false);
    change.reset();
  };
  return (
    <section className="card storage-section" aria-labelledby="backend-title" data-testid="nfs-backend" data-backend={state.backend}>
      <div className="section-head">
        <h2 id="backend-title" cds-text="section">
          NFS server: {NAMES[state.backend].name}
        </h2>
        <div className="section-actions">
          <CdsButton size="sm" action="outline" onClick={() => setAsking(true)}>
            Switch to {NAMES[other].name}
          </CdsButton>
        </div>
      </div>
      <p className="muted">
        {NAMES[state.backend].name} is {NAMES[state.backend].about}. The appliance runs one NFS server at a time.
      </p>
      {asking && (
        <ConfirmModal
          title={`Switch to ${NAMES[other].name}?`}
          confirmLabel={`Switch to ${NAMES[other].name}`}
          busy={change.isPending}
          error={change.isError ? messageOf(change.error) : null}
          onCancel={close}
          onConfirm={() => change.mutate(other, { onSuccess: close })}
        >
          {NAMES[state.backend].name} stops and {NAMES[other].name} ({NAMES[other].about}) serves the{' '}
          {state.exports.length} {state.exports.length === 1 ? 'export' : 'exports'}. ESXi hosts see the datastores pause
          while the server changes: do it in a maintenance window.
        </ConfirmModal>
      )}
    </section>
  );
}
