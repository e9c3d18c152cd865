import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ZfsPoolHealth, type Vdev, isScanning, useScrubPool } from '../../api/storage';
import { ExportPoolModal } from './ExportPoolModal';
import { GrowPoolModal } from './GrowPoolModal';
import { describePool, errorsOf } from './poolModel';
import { ReplaceDiskModal } from './ReplaceDiskModal';
import { ScanLine } from './ScanLine';
import { StateLabel } from './StateLabel';
import { VdevTable } from './VdevTable';

type Dialog = { kind: 'grow' } | { kind: 'export' } | { kind: 'replace'; vdev: Vdev };

/** One pool: state, layout, SLOG and L2ARC at a glance, then every device with its errors. */
export function PoolCard({ pool, onDestroy }: { pool: ZfsPoolHealth; onDestroy: () => void }) {
  const shape = describePool(pool);
  const deviceErrors = pool.vdevs.reduce((n, v) => n + errorsOf(v), 0);
  const id = `pool-${pool.name}`;
  const scrub = useScrubPool();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = () => setDialog(null);
  // zpool refuses a second scrub while one (or a resilver) runs.
  const scanning = isScanning(pool);
  return (
    <section className="card storage-section" aria-labelledby={`${id}-title`} data-testid="pool-card" data-pool={pool.name}>
      <div className="section-head">
        <h2 id={`${id}-title`} cds-text="section">
          {pool.name}
        </h2>
        <StateLabel state={pool.state} />
        <div className="section-actions">
          <CdsButton size="sm" action="outline" onClick={() => setDialog({ kind: 'grow' })} aria-label={`Add LUNs to pool ${pool.name}`}>
            <CdsIcon shape="plus" /> Add LUNs
          </CdsButton>
          <CdsButton
            size="sm"
            action="outline"
            onClick={() => scrub.mutate(pool.name)}
            disabled={scrub.isPending || scanning}
            loadingState={scrub.isPending ? 'loading' : 'default'}
            aria-label={`Scrub pool ${pool.name}`}
            title={scanning ? 'A scrub or resilver is running' : 'Read and verify every block'}
          >
            Scrub
          </CdsButton>
          <CdsButton size="sm" action="outline" onClick={() => setDialog({ kind: 'export' })} aria-label={`Export pool ${pool.name}`}>
            Export
          </CdsButton>
          <CdsButton size="sm" action="outline" status="danger" onClick={onDestroy} aria-label={`Destroy pool ${pool.name}`}>
            <CdsIcon shape="trash" /> Destroy
          </CdsButton>
        </div>
      </div>
      {scrub.isError && (
        <p className="text-danger" role="alert">
          The scrub did not start: {messageOf(scrub.error)}
        </p>
      )}
      <dl className="facts">
        <div>
          <dt>Layout</dt>
          <dd>{shape.layout}</dd>
        </div>
        <div>
          <dt>SLOG</dt>
          <dd>{shape.slog}</dd>
        </div>
        <div>
          <dt>L2ARC</dt>
          <dd>{shape.l2arc}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd className={pool.error_count || deviceErrors ? 'text-danger' : undefined}>
            {pool.error_count === 0 && deviceErrors === 0
              ? 'none'
              : [
                  pool.error_count ? `${pool.error_count} data ${pool.error_count === 1 ? 'error' : 'errors'}` : null,
                  deviceErrors ? `${deviceErrors} device ${deviceErrors === 1 ? 'error' : 'errors'}` : null,
                ]
                  .filter(Boolean)
                  .join(', ')}
          </dd>
        </div>
        <div>
          <dt>Last scan</dt>
          <dd data-testid="scan-line" data-scan-start={String(pool.scan?.start_time ?? '')}>
            <ScanLine scan={pool.scan ?? null} />
          </dd>
        </div>
      </dl>
      <VdevTable pool={pool} onReplace={(vdev) => setDialog({ kind: 'replace', vdev })} />
      {dialog?.kind === 'grow' && <GrowPoolModal pool={pool} onClose={close} />}
      {dialog?.kind === 'export' && <ExportPoolModal pool={pool} onClose={close} />}
      {dialog?.kind === 'replace' && <ReplaceDiskModal pool={pool} vdev={dialog.vdev} onClose={close} />}
    </section>
  );
}
