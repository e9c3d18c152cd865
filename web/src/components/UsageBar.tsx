interface Props {
  /** What is measured, for the accessible name, e.g. "CPU of esx-01". */
  label: string;
  used: number;
  total: number;
  /** Formats an amount for display, e.g. bytes → "12.5 GiB". */
  format: (value: number) => string;
}

/** Used-of-total as a bar with the figures under it, vSphere-style; amber from 80 %, red from 95 %. */
export function UsageBar({ label, used, total, format }: Props) {
  const pct = total > 0 ? Math.min(100, Math.max(0, (used / total) * 100)) : 0;
  const level = pct >= 95 ? 'critical' : pct >= 80 ? 'warning' : 'normal';
  return (
    <div className="usage">
      <div
        className="usage-track"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct)}
        aria-valuetext={`${format(used)} used of ${format(total)} (${Math.round(pct)} %)`}
      >
        <div className={`usage-fill usage-${level}`} style={{ width: `${pct}%` }} />
      </div>
      <div className="usage-text" aria-hidden="true">
        <span>
          {format(used)} / {format(total)}
        </span>
        <span className="usage-pct">{Math.round(pct)} %</span>
      </div>
    </div>
  );
}
