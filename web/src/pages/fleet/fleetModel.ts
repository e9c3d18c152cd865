// The fleet table's columns and their order: each a value to sort by and the words to show.
import type { FleetAppliance } from '../../api/fleet';
import { formatBytes } from '../../format';
import { iops, ms, percent, ratio, times } from '../storage/metricsModel';

export type SortKey =
  | 'name'
  | 'host'
  | 'state'
  | 'read_offload'
  | 'write_offload'
  | 'arc_hit_ratio'
  | 'l2_hit_ratio'
  | 'client_iops'
  | 'lun_iops'
  | 'client_latency_ms'
  | 'lun_latency_ms'
  | 'compressratio'
  | 'used'
  | 'alerts'
  | 'version';

export interface Sort {
  key: SortKey;
  descending: boolean;
}

type Value = number | string | null;

// Worst first when sorted ascending: what needs a look comes to the top.
const STATE_RANK: Record<FleetAppliance['state'], number> = {
  unreachable: 0,
  slow: 1,
  certificate: 2,
  refused: 3,
  unpinned: 4,
  ok: 5,
};

function lunLatency(a: FleetAppliance): number | null {
  const f = a.figures;
  if (!f) return null;
  const known = [f.lun_read_latency_ms, f.lun_write_latency_ms].filter((v): v is number => v !== null && v !== undefined);
  return known.length ? Math.max(...known) : null;
}

/** The value a column sorts by: null (not measured, not read) always sorts last. */
export function sortValue(a: FleetAppliance, key: SortKey): Value {
  const f = a.figures;
  switch (key) {
    case 'name':
    case 'host':
      return a[key];
    case 'version':
      return a.version ?? null;
    case 'state':
      return STATE_RANK[a.state] + (a.state === 'ok' && !a.healthy ? -0.5 : 0);
    case 'lun_latency_ms':
      return lunLatency(a);
    case 'used':
      return a.used_bytes !== null && a.used_bytes !== undefined && a.size_bytes ? a.used_bytes / a.size_bytes : null;
    case 'alerts':
      return a.alerts.length;
    default:
      return f ? (f[key] ?? null) : null;
  }
}

export function sorted(appliances: FleetAppliance[], sort: Sort): FleetAppliance[] {
  const sign = sort.descending ? -1 : 1;
  return [...appliances].sort((x, y) => {
    const a = sortValue(x, sort.key);
    const b = sortValue(y, sort.key);
    if (a === null || b === null) return a === b ? x.name.localeCompare(y.name) : a === null ? 1 : -1;
    const order = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
    return order === 0 ? x.name.localeCompare(y.name) : sign * order;
  });
}

const or = (v: number | null | undefined, format: (v: number) => string) => (v === null || v === undefined ? '—' : format(v));

export interface Column {
  key: SortKey;
  label: string;
  /** what the column says, in a header's title */
  hint: string;
  numeric: boolean;
  show: (a: FleetAppliance) => string;
}

export const COLUMNS: readonly Column[] = [
  { key: 'read_offload', label: 'Read offload', hint: 'Bytes the hosts read per byte read from the SAN', numeric: true, show: (a) => or(a.figures?.read_offload, times) },
  { key: 'write_offload', label: 'Write offload', hint: 'Bytes the hosts wrote per byte written to the SAN', numeric: true, show: (a) => or(a.figures?.write_offload, times) },
  { key: 'arc_hit_ratio', label: 'ARC hits', hint: 'Share of reads answered from RAM', numeric: true, show: (a) => or(a.figures?.arc_hit_ratio, percent) },
  { key: 'l2_hit_ratio', label: 'L2ARC hits', hint: 'Share of ARC misses answered from the SSD read cache', numeric: true, show: (a) => or(a.figures?.l2_hit_ratio, percent) },
  { key: 'client_iops', label: 'Client IOPS', hint: 'NFS operations per second, mean over the range', numeric: true, show: (a) => or(a.figures?.client_iops, iops) },
  { key: 'lun_iops', label: 'LUN IOPS', hint: 'I/Os per second that reached the SAN LUNs', numeric: true, show: (a) => or(a.figures?.lun_iops, iops) },
  { key: 'client_latency_ms', label: 'Client latency', hint: 'Mean NFS operation time at the server (not counted by the kernel server)', numeric: true, show: (a) => or(a.figures?.client_latency_ms, ms) },
  {
    key: 'lun_latency_ms',
    label: 'LUN latency r / w',
    hint: 'Mean read and write time at the SAN LUNs',
    numeric: true,
    show: (a) => (a.figures ? `${or(a.figures.lun_read_latency_ms, ms)} / ${or(a.figures.lun_write_latency_ms, ms)}` : '—'),
  },
  { key: 'compressratio', label: 'Compression', hint: 'Logical bytes per byte stored', numeric: true, show: (a) => or(a.figures?.compressratio, ratio) },
  {
    key: 'used',
    label: 'Used',
    hint: 'Bytes allocated of the pools\u2019 size',
    numeric: true,
    show: (a) =>
      a.used_bytes === null || a.used_bytes === undefined || !a.size_bytes
        ? '—'
        : `${Math.round((100 * a.used_bytes) / a.size_bytes)} % of ${formatBytes(a.size_bytes)}`,
  },
];
