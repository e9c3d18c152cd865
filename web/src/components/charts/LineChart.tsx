import { type KeyboardEvent, type PointerEvent, useId, useMemo, useRef, useState } from 'react';
import { ChartLegend } from './ChartLegend';
import { formatClock, linear, linePath, nearestIndex, niceTicks, timeTicks } from './scale';
import type { Series } from './types';
import { useWidth } from './useWidth';
import { YGrid } from './YGrid';

interface Props {
  title: string;
  /** One sentence on what the chart shows, read with its title. */
  description: string;
  /** Sample times, epoch milliseconds, ascending. */
  times: number[];
  series: Series[];
  /** An axis value as people read it: "92 %", "4x", "2 ms". */
  format: (value: number) => string;
  /** A sample's value in the tooltip and the read-out, when it wants more precision than the axis. */
  readout?: (value: number) => string;
  /** Lower end of the value axis (default 0); the upper end follows the data unless yMax is given. */
  yMin?: number;
  yMax?: number;
  /** The unit ticks are round in (e.g. 1024^n for bytes); decimal when absent. */
  tickUnit?: (max: number) => number;
  height?: number;
}

const MARGIN = { top: 10, right: 16, bottom: 26 };
// Room for the value labels left of the plot: about 7 px per character at the axis font size, generously.
const labelRoom = (labels: string[]) => Math.max(36, 14 + 7 * Math.max(...labels.map((l) => l.length)));

/**
 * A time-series line chart in plain SVG: axes, a legend that switches lines on and off, and a time cursor
 * that follows the pointer or the arrow keys (Home/End for the first/last sample) and reads out the values.
 */
export function LineChart(props: Props) {
  const { title, description, times, series, format, yMin = 0, yMax, tickUnit, height = 200 } = props;
  const exact = props.readout ?? format;
  const id = useId();
  const plotRef = useRef<HTMLDivElement>(null);
  const width = useWidth(plotRef);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [cursor, setCursor] = useState<number | null>(null);
  const shown = useMemo(() => series.filter((s) => !hidden.has(s.key)), [series, hidden]);

  const geometry = useMemo(() => {
    const values = shown.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
    const top = yMax ?? Math.max(yMin, ...values);
    const hi = yMax ?? (top > yMin ? top : yMin + 1);
    const unit = tickUnit ? tickUnit(hi) : 1;
    const ticks = niceTicks(yMin / unit, hi / unit).map((v) => v * unit);
    const left = labelRoom(ticks.map(format));
    const t0 = times[0] ?? 0;
    const t1 = times[times.length - 1] ?? 1;
    const innerW = Math.max(10, width - left - MARGIN.right);
    const innerH = height - MARGIN.top - MARGIN.bottom;
    const x = linear(t0, t1, left, left + innerW);
    const y = linear(ticks[0]!, ticks[ticks.length - 1]!, MARGIN.top + innerH, MARGIN.top);
    return { ticks, x, y, t0, t1, left, innerW, innerH, xs: times.map(x) };
  }, [shown, times, width, height, yMin, yMax, tickUnit, format]);

  const toggle = (key: string) =>
    setHidden((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else if (series.length - next.size > 1) next.add(key); // keep at least one line
      return next;
    });

  const last = times.length - 1;
  const readout = (i: number) =>
    `${formatClock(times[i]!, true)}: ${shown
      .map((s) => `${s.label} ${s.values[i] === null || s.values[i] === undefined ? 'no value' : exact(s.values[i]!)}`)
      .join(', ')}`;

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (times.length < 2) return;
    const box = event.currentTarget.getBoundingClientRect();
    const px = event.clientX - box.left;
    const t = geometry.t0 + ((px - geometry.left) / geometry.innerW) * (geometry.t1 - geometry.t0);
    setCursor(nearestIndex(times, t));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const current = Math.min(cursor ?? last, last);
    const moves: Record<string, number> = {
      ArrowLeft: current - 1,
      ArrowRight: current + 1,
      PageUp: current - 10,
      PageDown: current + 10,
      Home: 0,
      End: last,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    setCursor(Math.min(last, Math.max(0, moves[event.key]!)));
  };

  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  if (times.length < 2) {
    return (
      <figure className="chart card" aria-labelledby={titleId}>
        <figcaption>
          <h3 id={titleId} className="chart-title">
            {title}
          </h3>
          <p className="chart-desc">{description}</p>
        </figcaption>
        <p className="chart-empty">Not enough samples in this time range yet: a line needs two.</p>
      </figure>
    );
  }

  const { ticks, x, y, xs, innerH, left } = geometry;
  // The data is read again every interval: a cursor past the new end sits on the last sample.
  const active = cursor !== null ? Math.min(cursor, last) : null;
  const latest = readout(last);
  return (
    <figure className="chart card" aria-labelledby={titleId} data-testid="chart" data-chart={title}>
      <figcaption>
        <h3 id={titleId} className="chart-title">
          {title}
        </h3>
        <p className="chart-desc" id={descId}>
          {description}
        </p>
      </figcaption>
      <ChartLegend series={series} hidden={hidden} onToggle={toggle} />
      <div
        ref={plotRef}
        className="chart-plot"
        role="slider"
        tabIndex={0}
        aria-label={`${title}, time cursor`}
        aria-describedby={descId}
        aria-valuemin={0}
        aria-valuemax={last}
        aria-valuenow={active ?? last}
        aria-valuetext={active !== null ? readout(active) : `Latest, ${latest}`}
        onPointerMove={onPointerMove}
        onPointerLeave={() => setCursor(null)}
        onKeyDown={onKeyDown}
        onBlur={() => setCursor(null)}
      >
        <svg width={width} height={height} aria-hidden="true" focusable="false">
          <YGrid ticks={ticks} y={y} left={left} right={width - MARGIN.right} format={format} />
          {timeTicks(geometry.t0, geometry.t1, Math.max(2, Math.floor(geometry.innerW / 90)))
            // A label centred on a tick too near either end would run into the value labels or off the chart.
            .filter((t) => x(t) >= left + 28 && x(t) <= width - MARGIN.right - 28)
            .map((t) => (
            <g key={t} className="chart-axis-x">
              <line x1={x(t)} x2={x(t)} y1={MARGIN.top + innerH} y2={MARGIN.top + innerH + 4} />
              <text x={x(t)} y={MARGIN.top + innerH + 16} textAnchor="middle">
                {formatClock(t)}
              </text>
            </g>
          ))}
          <line
            className="chart-baseline"
            x1={left}
            x2={width - MARGIN.right}
            y1={MARGIN.top + innerH}
            y2={MARGIN.top + innerH}
          />
          {shown.map((s) => (
            <path
              key={s.key}
              d={linePath(
                xs,
                s.values.map((v) => (v === null ? null : y(v))),
              )}
              fill="none"
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dashed ? '5 4' : undefined}
              strokeLinejoin="round"
            />
          ))}
          {active !== null && (
            <g className="chart-cursor">
              <line x1={xs[active]} x2={xs[active]} y1={MARGIN.top} y2={MARGIN.top + innerH} />
              {shown.map((s) =>
                s.values[active] === null || s.values[active] === undefined ? null : (
                  <circle key={s.key} cx={xs[active]} cy={y(s.values[active]!)} r={3.5} fill={s.color} />
                ),
              )}
            </g>
          )}
        </svg>
        {active !== null && (
          <div
            className="chart-tooltip"
            style={xs[active]! > width / 2 ? { right: width - xs[active]! + 10 } : { left: xs[active]! + 10 }}
          >
            <div className="chart-tooltip-time">{formatClock(times[active]!, true)}</div>
            {shown.map((s) => (
              <div key={s.key} className="chart-tooltip-row">
                <span className="chart-swatch" style={{ background: s.color }} aria-hidden="true" />
                <span>{s.label}</span>
                <strong>{s.values[active] === null || s.values[active] === undefined ? '—' : exact(s.values[active]!)}</strong>
              </div>
            ))}
          </div>
        )}
      </div>
    </figure>
  );
}
