import { useId, useRef, useState } from 'react';
import { ChartLegend } from '../../components/charts/ChartLegend';
import { linear, linePath, niceTicks } from '../../components/charts/scale';
import type { Series } from '../../components/charts/types';
import { useWidth } from '../../components/charts/useWidth';
import { YGrid } from '../../components/charts/YGrid';

interface Props {
  title: string;
  description: string;
  /** Desktops of each step, ascending. */
  desktops: number[];
  series: Series[];
  format: (value: number) => string;
  height?: number;
}

const MARGIN = { top: 10, right: 16, bottom: 34 };

/**
 * A line per series against the number of desktops (not time), in plain SVG with the shared chart scales.
 * The figures are in the steps table beside it; the plot itself is one image with a summary for screen readers.
 */
export function DensityChart({ title, description, desktops, series, format, height = 200 }: Props) {
  const id = useId();
  const plotRef = useRef<HTMLDivElement>(null);
  const width = useWidth(plotRef);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const shown = series.filter((s) => !hidden.has(s.key));
  const toggle = (key: string) =>
    setHidden((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else if (series.length - next.size > 1) next.add(key); // keep at least one line
      return next;
    });
  const values = shown.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const ticks = niceTicks(0, Math.max(1, ...values));
  const x0 = Math.min(...desktops);
  const x1 = Math.max(...desktops);
  // room for the value labels: about 7 px per character at the axis font size, generously
  const left = Math.max(36, 14 + 7 * Math.max(...ticks.map((t) => format(t).length)));
  const innerW = Math.max(10, width - left - MARGIN.right);
  const innerH = height - MARGIN.top - MARGIN.bottom;
  const x = linear(x0, x1 === x0 ? x0 + 1 : x1, left, left + innerW);
  const y = linear(ticks[0]!, ticks[ticks.length - 1]!, MARGIN.top + innerH, MARGIN.top);
  const xs = desktops.map(x);
  const summary = shown
    .map((s) => `${s.label}: ${desktops.map((d, i) => `${d} desktops ${s.values[i] == null ? 'no value' : format(s.values[i]!)}`).join(', ')}`)
    .join('. ');
  return (
    <figure className="chart card" aria-labelledby={`${id}-title`} data-testid="density-chart" data-chart={title}>
      <figcaption>
        <h3 id={`${id}-title`} className="chart-title">
          {title}
        </h3>
        <p className="chart-desc">{description}</p>
      </figcaption>
      <ChartLegend series={series} hidden={hidden} onToggle={toggle} />
      <div ref={plotRef} className="chart-plot" role="img" aria-label={`${title}. ${summary}`}>
        <svg width={width} height={height} aria-hidden="true" focusable="false">
          <YGrid ticks={ticks} y={y} left={left} right={width - MARGIN.right} format={format} />
          {desktops.map((d, i) => (
            <g key={d} className="chart-axis-x">
              <line x1={xs[i]} x2={xs[i]} y1={MARGIN.top + innerH} y2={MARGIN.top + innerH + 4} />
              <text x={xs[i]} y={MARGIN.top + innerH + 16} textAnchor="middle">
                {d}
              </text>
            </g>
          ))}
          <text className="chart-axis-x" x={left + innerW / 2} y={height - 2} textAnchor="middle">
            desktops
          </text>
          <line className="chart-baseline" x1={left} x2={width - MARGIN.right} y1={MARGIN.top + innerH} y2={MARGIN.top + innerH} />
          {shown.map((s) => (
            <g key={s.key}>
              <path
                d={linePath(xs, s.values.map((v) => (v === null ? null : y(v))))}
                fill="none"
                stroke={s.color}
                strokeWidth={2}
                strokeDasharray={s.dashed ? '5 4' : undefined}
                strokeLinejoin="round"
              />
              {s.values.map((v, i) => (v === null ? null : <circle key={i} cx={xs[i]} cy={y(v)} r={3} fill={s.color} />))}
            </g>
          ))}
        </svg>
      </div>
    </figure>
  );
}
