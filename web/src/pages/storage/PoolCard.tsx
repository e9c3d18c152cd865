import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import type { PoolHealth } from '../../api/storage';
import { describePool, errorsOf } from './poolModel';
import { ScanLine } from './ScanLine';
import { StateLabel } from './StateLabel';
import { VdevTable } from './VdevTable';

/** One pool: state, layout, SLOG and L2ARC at a glance, then every device with its errors. */
export function PoolCard({ pool, onDestroy }: { pool: PoolHealth; onDestroy: () => void }) {
  const shape = describePool(pool);
  const deviceErrors = pool.vdevs.reduce((n, v) => n + errorsOf(v), 0);
  const id = `pool-${pool.name}`;
  return (
    <section className="card storage-section" aria-labelledby={`${id}-title`} data-testid="pool-card" data-pool={pool.name}>
      <div className="section-head">
        <h2 id={`${id}-title`} cds-text="section">
          {pool.name}
        </h2>
        <StateLabel state={pool.state} />
        <div className="section-actions">
          <CdsButton size="sm" action="outline" status="danger" onClick={onDestroy} aria-label={`Destroy pool ${pool.name}`}>
            <CdsIcon shape="trash" /> Destroy
          </CdsButton>
        </div>
      </div>
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
          <dd>
            <ScanLine scan={pool.scan ?? null} />
          </dd>
        </div>
      </dl>
      <VdevTable pool={pool} />
    </section>
  );
}
