// How the tuning page shows the calculator's values: sizes in binary units, seconds, ratios.
import { formatBytes } from '../../format';

const SIZES = new Set(['zfs_arc_max', 'zfs_arc_min', 'l2arc_size', 'l2arc_write_max', 'l2arc_write_boost', 'slog_size']);
const SWITCHES = new Set(['zfs_prefetch_disable', 'l2arc_noprefetch', 'l2arc_rebuild_enabled', 'zio_dva_throttle_enabled']);

export function formatValue(name: string, value: number | string): string {
  if (typeof value === 'string') return value;
  if (SIZES.has(name)) return formatBytes(value);
  if (name === 'zfs_txg_timeout') return `${value} s`;
  if (name === 'expected_read_offload') return `${value}x`;
  if (SWITCHES.has(name)) return value ? '1 (on)' : '0 (off)';
  return String(value);
}

export interface CalculatorDraft {
  pool_type: string;
  desktops: string;
  desktop_gib: string;
  golden_gib: string;
  ram_gib: string;
  l2arc_ssd_gib: string;
  slog_ssd_gib: string;
  write_mib_s: string;
  compression_ratio: string;
}

export type NumberField = Exclude<keyof CalculatorDraft, 'pool_type'>;

export const FIELDS: { name: NumberField; label: string; hint: string; min: number; integer?: boolean }[] = [
  { name: 'desktops', label: 'Desktops', hint: 'desktops on this appliance', min: 1, integer: true },
  { name: 'desktop_gib', label: 'Per desktop (GiB)', hint: 'its own bytes: delta disk or full clone', min: 0.001 },
  { name: 'golden_gib', label: 'Golden image (GiB)', hint: 'the replica linked clones share', min: 0.001 },
  { name: 'ram_gib', label: 'Appliance RAM (GiB)', hint: 'memory of this appliance VM', min: 2 },
  { name: 'l2arc_ssd_gib', label: 'Cache SSD (GiB)', hint: '0: no L2ARC', min: 0 },
  { name: 'slog_ssd_gib', label: 'Log SSD (GiB)', hint: '0: no SLOG', min: 0 },
  { name: 'write_mib_s', label: 'Peak sync writes (MiB/s)', hint: 'from all hosts at once', min: 0 },
  { name: 'compression_ratio', label: 'Expected compression', hint: 'whitepaper: 1.7 to 1.86', min: 1 },
];

export const DEFAULT_DRAFT: CalculatorDraft = {
  pool_type: 'stateless-linked',
  desktops: '500',
  desktop_gib: '5',
  golden_gib: '40',
  ram_gib: '64',
  l2arc_ssd_gib: '400',
  slog_ssd_gib: '16',
  write_mib_s: '20',
  compression_ratio: '1.7',
};

/** Field errors for numbers out of range; an empty result means the draft can be sent. */
export function validateCalculator(draft: CalculatorDraft): Partial<Record<NumberField, string>> {
  const errors: Partial<Record<NumberField, string>> = {};
  for (const f of FIELDS) {
    const raw = draft[f.name].trim();
    const value = Number(raw);
    if (!raw || !Number.isFinite(value)) errors[f.name] = 'Enter a number.';
    else if (value < f.min) errors[f.name] = `At least ${f.min}.`;
    else if (f.integer && !Number.isInteger(value)) errors[f.name] = 'A whole number.';
  }
  return errors;
}
