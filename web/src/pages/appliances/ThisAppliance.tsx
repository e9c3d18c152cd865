import { usePools } from '../../api/storage';
import { messageOf } from '../../api/errors';
import { humanize } from '../../format';
import type { ApplianceInfo } from './appliancesApi';

function LocalPools() {
  const pools = usePools();
  if (pools.isPending) return <span className="muted">reading…</span>;
  if (pools.isError) return <span className="text-danger">{messageOf(pools.error)}</span>;
  if (pools.data.length === 0) return <span className="muted">no pool</span>;
  return (
    <>
      {pools.data.map((p) => (
        <div key={p.name} className={p.state === 'ONLINE' && p.error_count === 0 ? undefined : 'text-danger'}>
          {p.name}: {p.state.toLowerCase()}
          {p.error_count > 0 && `, ${p.error_count} data errors`}
        </div>
      ))}
    </>
  );
}

/** The machine serving this page: an appliance (build, role, first boot, its pools) or not. */
export function ThisAppliance({ info }: { info: ApplianceInfo }) {
  const onAppliance = Boolean(info.build);
  const fb = info.firstboot;
  return (
    <section className="card storage-section" aria-labelledby="this-appliance-title" data-testid="this-appliance">
      <h2 id="this-appliance-title" cds-text="section">
        {onAppliance ? 'This appliance' : 'This machine'} <span className="muted small">{info.hostname}</span>
      </h2>
      {!onAppliance && (
        <p className="muted" data-testid="not-an-appliance">
          arcvsa {info.version} runs here outside an appliance image (no build manifest): the fleet below is what it manages.
        </p>
      )}
      {onAppliance && info.build && (
        <dl className="facts">
          <div>
            <dt>Version</dt>
            <dd>{info.build.version}</dd>
          </div>
          <div>
            <dt>Role</dt>
            <dd>{info.role ?? 'not set'}</dd>
          </div>
          <div>
            <dt>NFS server</dt>
            <dd>{info.nfs_backend ?? 'default'}</dd>
          </div>
          <div>
            <dt>OpenZFS</dt>
            <dd>{info.build.openzfs}</dd>
          </div>
          <div>
            <dt>First boot</dt>
            <dd className={fb.status === 'failed' || fb.status === 'refused' ? 'text-danger' : undefined}>
              {humanize(fb.status)}
              {(fb.errors ?? []).length > 0 && `: ${(fb.errors ?? []).map((e) => e.label ?? e.key ?? e.message).join(', ')} refused`}
            </dd>
          </div>
          <div>
            <dt>Pools</dt>
            <dd>
              <LocalPools />
            </dd>
          </div>
        </dl>
      )}
    </section>
  );
}
