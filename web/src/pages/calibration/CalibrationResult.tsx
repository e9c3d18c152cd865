import { CdsButton } from '@cds/react/button';
import { type Calibration, isRunning, useCancelCalibration } from '../../api/calibration';
import { messageOf } from '../../api/errors';
import { COLORS } from '../storage/metricsModel';
import { DensityChart } from './DensityChart';

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`);
const num = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const SAN_NAMES: Record<string, string> = {
  'randread-4k': '4K random read (queue depth 16)',
  'randwrite-4k': '4K random write (queue depth 16)',
  'read-1m': '1M sequential read (queue depth 4)',
  'write-1m': '1M sequential write (queue depth 4)',
};

export function targetLabel(c: Calibration): string {
  return c.target.kind === 'lun' ? `LUN ${c.target.name}` : `dataset ${c.target.name}`;
}

/** One calibration: progress while it runs, then "N desktops supported" with the chart and every step (or the SAN check's figures). */
export function CalibrationResult({ calibration: c }: { calibration: Calibration }) {
  const cancel = useCancelCalibration();
  const running = isRunning(c);
  const label = `${c.kind === 'ramp' ? 'Ramp' : 'SAN check'} ${c.id} on ${targetLabel(c)}`;
  const threshold = c.ramp?.threshold_ms ?? 0;
  const desktops = c.steps.map((s) => s.desktops);
  return (
    <section className="card storage-section" aria-labelledby={`calibration-${c.id}-title`} data-testid="calibration-result" data-state={c.state}>
      <div className="section-head">
        <h2 id={`calibration-${c.id}-title`} cds-text="section">
          {label}
        </h2>
        {running && c.kind === 'ramp' && (
          <div className="section-actions">
            <CdsButton size="sm" action="outline" onClick={() => cancel.mutate(c.id)} disabled={cancel.isPending}>
              Stop after this step
            </CdsButton>
          </div>
        )}
      </div>
      <div aria-live="polite">
        {running && (
          <>
            <progress aria-label={`${label} progress`} max={c.total || 1} value={c.done} style={{ width: '100%' }} />
            <p className="muted small">
              {c.state === 'queued' ? 'Waiting to start' : `${c.done} of ${c.total} steps`}: {c.message}
            </p>
          </>
        )}
        {!running && c.kind === 'ramp' && c.desktops_supported !== null && (
          <p className="calibration-figure" data-testid="desktops-supported">
            <strong>{c.desktops_supported}</strong> desktops supported
            <span className="muted small"> at p95 ≤ {threshold} ms · {c.stop_reason}</span>
          </p>
        )}
        {!running && c.state !== 'succeeded' && <p className={c.state === 'failed' ? 'text-danger' : 'muted'}>{c.state}: {c.message}</p>}
        {cancel.isError && (
          <p className="text-danger" role="alert">
            {messageOf(cancel.error)}
          </p>
        )}
      </div>
      {c.kind === 'ramp' && c.profile && (
        <p className="muted small">
          Each desktop: {c.profile.iops} IOPS, {c.profile.read_percent} % reads ({c.profile.read_bssplit}), writes {c.profile.write_bssplit}, {c.profile.size_mib} MiB working set.
          {c.ramp && ` Steps of ${c.ramp.step_seconds} s from ${c.ramp.start} to ${c.ramp.max} desktops, +${c.ramp.step} each, ending after ${c.ramp.patience} failed in a row.`}
          {c.properties.sync !== undefined && ` Dataset: sync=${String(c.properties.sync)}, recordsize=${String(c.properties.recordsize ?? '?')}, compression=${String(c.properties.compression ?? '?')}.`}
        </p>
      )}
      {c.steps.length >= 2 && (
        <div className="calibration-charts">
          <DensityChart
            title="p95 latency"
            description={`The worse of read and write p95 completion latency at each step, against the ${threshold} ms threshold.`}
            desktops={desktops}
            format={(v) => `${num(v)} ms`}
            series={[
              { key: 'p95', label: 'p95 latency', color: COLORS.orange, values: c.steps.map((s) => s.p95_ms) },
              { key: 'threshold', label: 'Threshold', color: COLORS.violet, values: c.steps.map(() => threshold), dashed: true },
            ]}
          />
          <DensityChart
            title="IOPS"
            description="IOPS achieved at each step, against what the desktops asked for."
            desktops={desktops}
            format={num}
            series={[
              { key: 'iops', label: 'Achieved', color: COLORS.blue, values: c.steps.map((s) => s.iops) },
              { key: 'requested', label: 'Requested', color: COLORS.green, values: c.steps.map((s) => s.requested_iops), dashed: true },
            ]}
          />
        </div>
      )}
      {c.steps.length > 0 && (
        <div className="table-wrap">
          <table cds-table="border:outside border:row" className="data-table" data-testid="calibration-steps">
            <caption className="sr-only">Every step of {label}</caption>
            <thead>
              <tr>
                <th scope="col">Desktops</th>
                <th scope="col">IOPS (requested)</th>
                <th scope="col">Read p50 / p95 / p99</th>
                <th scope="col">Write p50 / p95 / p99</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {c.steps.map((s) => (
                <tr key={s.desktops}>
                  <td>{s.desktops}</td>
                  <td>
                    {num(s.iops)} ({num(s.requested_iops)})
                  </td>
                  <td>
                    {ms(s.figures.read.p50_ms)} / {ms(s.figures.read.p95_ms)} / {ms(s.figures.read.p99_ms)}
                  </td>
                  <td>
                    {ms(s.figures.write.p50_ms)} / {ms(s.figures.write.p95_ms)} / {ms(s.figures.write.p99_ms)}
                  </td>
                  <td>{s.passed ? 'passed' : `failed: ${s.reason}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {c.san && (
        <div className="table-wrap">
          <table cds-table="border:outside border:row" className="data-table" data-testid="san-check">
            <caption className="sr-only">SAN check of {c.target.name}</caption>
            <thead>
              <tr>
                <th scope="col">Test</th>
                <th scope="col">IOPS</th>
                <th scope="col">MiB/s</th>
                <th scope="col">Latency p50 / p95 / p99</th>
              </tr>
            </thead>
            <tbody>
              {c.san.phases.map((p) => (
                <tr key={p.name}>
                  <td>{SAN_NAMES[p.name] ?? p.name}</td>
                  <td>{num(p.iops)}</td>
                  <td>{num(p.mib_s)}</td>
                  <td>
                    {ms(p.latency.p50_ms)} / {ms(p.latency.p95_ms)} / {ms(p.latency.p99_ms)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
