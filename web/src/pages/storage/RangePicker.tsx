export const RANGES = [
  { minutes: 15, label: '15 min' },
  { minutes: 60, label: '1 h' },
  { minutes: 360, label: '6 h' },
  { minutes: 1440, label: '24 h' },
] as const;

/** How far back the charts look: a group of toggle buttons, one pressed. */
export function RangePicker({ minutes, onChange }: { minutes: number; onChange: (minutes: number) => void }) {
  return (
    <div className="range-picker" role="group" aria-label="Time range">
      {RANGES.map((r) => (
        <button key={r.minutes} type="button" aria-pressed={r.minutes === minutes} onClick={() => onChange(r.minutes)}>
          {r.label}
        </button>
      ))}
    </div>
  );
}
