import { formatDateTime } from '../../format';

// zpool status -j reports scan_stats with upper-case words and epoch seconds.
function word(value: unknown): string | null {
  return typeof value === 'string' && value ? value.toLowerCase() : null;
}

function when(value: unknown): string | null {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? formatDateTime(new Date(seconds * 1000).toISOString()) : null;
}

// A running scan's share done, as zpool status computes it: bytes issued of those to examine.
function done(scan: Record<string, unknown>): number | null {
  const total = Number(scan.to_examine);
  const issued = Number(scan.issued);
  return total > 0 && Number.isFinite(issued) ? Math.min(100, Math.floor((issued / total) * 100)) : null;
}

/** The last or running scrub/resilver in words, e.g. "scrub finished 21 Nov 2026, 14:02 (0 errors)". */
export function ScanLine({ scan }: { scan: Record<string, unknown> | null }) {
  if (!scan) return <span className="muted">never scrubbed</span>;
  const kind = word(scan.function) ?? 'scan';
  const state = word(scan.state) ?? 'unknown';
  const at = state === 'finished' ? when(scan.end_time) : when(scan.start_time);
  const errors = typeof scan.errors === 'number' ? scan.errors : null;
  const progress = state === 'scanning' ? done(scan) : null;
  return (
    <span>
      {kind} {state}
      {at ? ` ${at}` : ''}
      {progress !== null ? `, ${progress}% done` : ''}
      {errors !== null ? ` (${errors} ${errors === 1 ? 'error' : 'errors'})` : ''}
    </span>
  );
}
