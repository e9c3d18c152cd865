import type { Series } from './types';

interface Props {
  series: Series[];
  hidden: Set<string>;
  onToggle: (key: string) => void;
}

/** The legend doubles as the series switches: a button per line, pressed while the line is shown. */
export function ChartLegend({ series, hidden, onToggle }: Props) {
  return (
    <ul className="chart-legend">
      {series.map((s) => {
        const shown = !hidden.has(s.key);
        return (
          <li key={s.key}>
            <button
              type="button"
              className="chart-legend-item"
              aria-pressed={shown}
              onClick={() => onToggle(s.key)}
              title={shown ? `Hide ${s.label}` : `Show ${s.label}`}
            >
              <svg width="18" height="10" aria-hidden="true" focusable="false">
                <line
                  x1="1"
                  y1="5"
                  x2="17"
                  y2="5"
                  stroke={s.color}
                  strokeWidth="2.5"
                  strokeDasharray={s.dashed ? '4 3' : undefined}
                />
              </svg>
              <span>{s.label}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
