import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { type FleetView, useFleet } from '../../api/fleet';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { SelectField } from '../../components/SelectField';
import { formatBytes } from '../../format';
import { ChartGrid } from '../storage/ChartGrid';
import { RANGES, RangePicker } from '../storage/RangePicker';
import { RefreshButton } from '../storage/RefreshButton';
import { chartSpecs, iops, ms, percent, ratio, times } from '../storage/metricsModel';
import { FleetBackupModal } from './FleetBackupModal';
import { chartKey, FleetTable } from './FleetTable';
import type { Sort, SortKey } from './fleetModel';

const FLEET = 'fleet';

function Fact({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div data-testid={testId}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

const or = (v: number | null | undefined, format: (v: number) => string) => (v === null || v === undefined ? '—' : format(v));

function FleetTotals({ view, range }: { view: FleetView; range: string }) {
  const all = view.deployments.flatMap((d) => d.appliances);
  const answered = all.filter((a) => a.state === 'ok');
  const f = view.figures;
  const used = answered.reduce((s, a) => s + (a.used_bytes ?? 0), 0);
  const size = answered.reduce((s, a) => s + (a.size_bytes ?? 0), 0);
  const alerts = all.reduce((s, a) => s + a.alerts.length, 0);
  return (
    <section className="card storage-section" aria-labelledby="fleet-totals-title" data-testid="fleet-totals">
      <div className="section-head">
        <h2 id="fleet-totals-title" cds-text="section">
          The fleet over the last {range}
        </h2>
        <span className="muted small">
          read in {view.seconds.toFixed(1)} s; each appliance has {view.timeout_seconds} s
        </span>
      </div>
      <dl className="facts">
        <Fact label="Appliances answering" value={`${answered.length} of ${all.length}`} testId="fleet-answering" />
        <Fact label="Read offload" value={or(f.read_offload, times)} />
        <Fact label="Write offload" value={or(f.write_offload, times)} />
        <Fact label="ARC hits" value={or(f.arc_hit_ratio, percent)} />
        <Fact label="Client IOPS" value={iops(f.client_iops)} />
        <Fact label="LUN IOPS" value={iops(f.lun_iops)} />
        <Fact label="Client latency" value={or(f.client_latency_ms, ms)} />
        <Fact label="Compression" value={or(f.compressratio, ratio)} />
        <Fact label="Used" value={size ? `${formatBytes(used)} of ${formatBytes(size)}` : '—'} />
        <Fact label="Alerts" value={String(alerts)} testId="fleet-alert-count" />
      </dl>
    </section>
  );
}

/** Every appliance of every deployment in one view: offload, cache, IOPS, latency, space and alerts. */
export function FleetPage() {
  const [minutes, setMinutes] = useState(60);
  const [backingUp, setBackingUp] = useState(false);
  const [sort, setSort] = useState<Sort>({ key: 'name', descending: false });
  const [charted, setCharted] = useState<string>(FLEET);
  const fleet = useFleet(minutes);
  const navigate = useNavigate();
  const view = fleet.data;
  const range = RANGES.find((r) => r.minutes === minutes)?.label ?? `${minutes} min`;

  const onSort = (key: SortKey) =>
    setSort((s) => (s.key === key ? { key, descending: !s.descending } : { key, descending: false }));

  const options = useMemo(() => {
    const out = [{ value: FLEET, label: 'The whole fleet (summed)' }];
    for (const d of view?.deployments ?? []) {
      for (const a of d.appliances) {
        if (a.figures) out.push({ value: chartKey(d, a), label: `${a.name} (${d.name})` });
      }
    }
    return out;
  }, [view]);
  const chosen = options.some((o) => o.value === charted) ? charted : FLEET;
  const points = useMemo(() => {
    if (!view) return [];
    if (chosen === FLEET) return view.series;
    for (const d of view.deployments) for (const a of d.appliances) if (chartKey(d, a) === chosen) return a.series;
    return [];
  }, [view, chosen]);
  const charts = useMemo(() => chartSpecs(points), [points]);
  const timesMs = useMemo(() => points.map((p) => new Date(p.t).getTime()), [points]);

  return (
    <>
      <PageHeader
        title="Fleet"
        subtitle="Every appliance of every deployment, each asked through its own api: what it takes off the SAN, its cache, I/O, latency, space and alerts."
        actions={
          <>
            <RangePicker minutes={minutes} onChange={setMinutes} />
            <RefreshButton query={fleet} />
            {view && view.deployments.length > 0 && (
              <CdsButton action="outline" onClick={() => setBackingUp(true)}>
                <CdsIcon shape="download" /> Back up all
              </CdsButton>
            )}
          </>
        }
      />
      {backingUp && <FleetBackupModal onClose={() => setBackingUp(false)} />}
      {fleet.isPending && <Loading label="Reading every appliance" />}
      {fleet.isError && <ErrorState title="Could not read the fleet" error={fleet.error} onRetry={() => void fleet.refetch()} />}
      {view && view.deployments.length === 0 && (
        <div className="empty-state" data-testid="fleet-none">
          <CdsIcon shape="host" size="xl" />
          <p cds-text="section">No appliance deployed yet</p>
          <p cds-text="secondary">The deployment wizard places one appliance per ESXi host; they appear here once deployed.</p>
          <CdsButton action="outline" onClick={() => void navigate('/deploy')}>
            Open the deployment wizard
          </CdsButton>
        </div>
      )}
      {view && view.deployments.length > 0 && (
        <div className="storage-stack" aria-busy={fleet.isFetching}>
          <FleetTotals view={view} range={range} />
          {view.deployments.map((d) => (
            <FleetTable key={d.id} deployment={d} sort={sort} onSort={onSort} charted={chosen} onChart={setCharted} />
          ))}
          <h2 cds-text="section" className="dashboard-heading">
            Over time
          </h2>
          <div className="fleet-chart-picker">
            <SelectField label="Charts for" name="charted" value={chosen} options={options} onChange={setCharted} />
          </div>
          {points.length === 0 ? (
            <div className="empty-state" data-testid="fleet-charts-empty">
              <CdsIcon shape="line-chart" size="xl" />
              <p cds-text="section">No samples in this time range yet</p>
              <p cds-text="secondary">Each appliance records one sample every 10 s while ZFS is loaded; charts appear after two.</p>
            </div>
          ) : (
            <ChartGrid charts={charts} times={timesMs} testId="fleet-charts" />
          )}
        </div>
      )}
    </>
  );
}
