/** Horizontal grid lines with their value labels, for the SVG charts (left axis). */
export function YGrid(props: {
  ticks: number[];
  y: (v: number) => number;
  left: number;
  right: number;
  format: (v: number) => string;
}) {
  const { ticks, y, left, right, format } = props;
  return (
    <>
      {ticks.map((v) => (
        <g key={v} className="chart-grid">
          <line x1={left} x2={right} y1={y(v)} y2={y(v)} />
          <text x={left - 6} y={y(v)} dy="0.32em" textAnchor="end">
            {format(v)}
          </text>
        </g>
      ))}
    </>
  );
}
