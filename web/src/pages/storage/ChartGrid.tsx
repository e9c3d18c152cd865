import { LineChart } from '../../components/charts/LineChart';
import type { ChartSpec } from './metricsModel';

/** The dashboard's charts side by side, on one time axis (ms since the epoch). */
export function ChartGrid({ charts, times, busy, testId }: { charts: ChartSpec[]; times: number[]; busy?: boolean; testId?: string }) {
  return (
    <div className="dashboard-grid" aria-busy={busy} data-testid={testId}>
      {charts.map((c) => (
        <LineChart
          key={c.key}
          title={c.title}
          description={c.description}
          times={times}
          series={c.series}
          format={c.format}
          readout={c.readout}
          yMin={c.yMin}
          yMax={c.yMax}
          tickUnit={c.tickUnit}
        />
      ))}
    </div>
  );
}
