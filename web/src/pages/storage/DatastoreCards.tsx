import type { MetricsSummary } from '../../api/metrics';
import { formatBytes, formatDateTime } from '../../format';
import { percent, rate, ratio } from './metricsModel';

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

const or = (value: number | null | undefined, format: (v: number) => string, none = '—') =>
  value === null || value === undefined ? none : format(value);

/** The cache now, then one card per datastore (NFS export) from the latest sample. */
export function DatastoreCards({ summary }: { summary: MetricsSummary }) {
  return (
    <>
      <section className="card storage-section" aria-labelledby="cache-now-title" data-testid="cache-now">
        <div className="section-head">
          <h2 id="cache-now-title" cds-text="section">
            Cache now
          </h2>
          {summary.t && <span className="muted small">sampled {formatDateTime(summary.t)}</span>}
        </div>
        <dl className="facts">
          <Fact label="ARC hit ratio" value={or(summary.arc_hit_ratio, percent)} />
          <Fact label="L2ARC hit ratio" value={or(summary.l2_hit_ratio, percent)} />
          <Fact
            label="ARC size"
            value={summary.arc_size === null ? '—' : `${formatBytes(summary.arc_size)}${summary.arc_max ? ` of ${formatBytes(summary.arc_max)}` : ''}`}
          />
          <Fact label="L2ARC size" value={or(summary.l2_size, formatBytes)} />
          <Fact label="Compression" value={or(summary.compressratio, ratio)} />
          <Fact label="NFS server" value={summary.backend ?? '—'} />
        </dl>
      </section>
      <h2 cds-text="section" className="dashboard-heading">
        Datastores <span className="count">{summary.exports.length}</span>
      </h2>
      {summary.exports.length === 0 ? (
        <p className="empty-inline">No datastore exported yet — export a dataset to the ESXi hosts on the NFS exports page.</p>
      ) : (
        <div className="datastore-cards">
          {summary.exports.map((card) => (
            <section key={card.export_id} className="card datastore-card" data-testid="datastore-card" aria-label={`Datastore ${card.dataset ?? card.path}`}>
              <h3>{card.dataset ?? card.path}</h3>
              <code className="muted">{card.path}</code>
              <dl className="facts">
                <Fact label="Compression" value={or(card.compressratio, ratio)} />
                <Fact label="Used" value={or(card.used, formatBytes)} />
                <Fact label="Logical" value={or(card.logical_used, formatBytes)} />
                <Fact label="Client reads" value={or(card.client_read_bytes, rate, 'not counted')} />
                <Fact label="Client writes" value={or(card.client_write_bytes, rate, 'not counted')} />
              </dl>
            </section>
          ))}
        </div>
      )}
    </>
  );
}
