// Step 4's sizing, as an architect reads it: the few figures decided on (layout, caches, log, compression,
// record size, offload), each once, and every other tuning value with its why on demand.
//
// One word, one thing: "SLOG" and "L2ARC" are the SSDs chosen in step 3, shown with their size; what the
// calculator works out about them is named for what it is ("the log holds at most", "worth caching").
import type { Plan, Profile, SizingInput } from '../../api/storage';
import { formatBytes } from '../../format';
import { formatValue } from '../storage/tuningModel';
import { isSsd, type Draft } from './draft';

export interface Figure {
  key: string;
  label: string;
  value: string;
  why: string;
}

/** The first appliance's pool, as step 3 lays it out (every appliance is built alike). */
export interface PoolLayout {
  luns: number;
  logSsds: number;
  logGib: number;
  cacheSsds: number;
  cacheGib: number;
}

export function poolLayout(draft: Draft): PoolLayout {
  const disks = draft.backend.luns[draft.hosts[0] ?? ''] ?? [];
  const ssds = (role: 'log' | 'cache') => disks.filter((d) => d.role === role);
  const gib = (role: 'log' | 'cache') => ssds(role).reduce((n, d) => n + (d.kind === 'vmdk' && d.sizeGb > 0 ? d.sizeGb : 0), 0);
  return {
    luns: disks.filter((d) => !isSsd(d)).length,
    logSsds: ssds('log').length,
    logGib: gib('log'),
    cacheSsds: ssds('cache').length,
    cacheGib: gib('cache'),
  };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** How the datastore's appliances build their pool, in words. */
export function layoutWords(layout: PoolLayout): string {
  if (layout.luns === 0) return 'No SAN LUN chosen yet (step 3)';
  const parts = [`Stripe of ${plural(layout.luns, 'SAN LUN')}`];
  if (layout.logSsds) parts.push(layout.logSsds === 2 ? 'SLOG on a mirror of 2 SSDs' : 'SLOG on 1 SSD');
  if (layout.cacheSsds) parts.push(`L2ARC on ${plural(layout.cacheSsds, 'SSD')}`);
  return parts.join(', ');
}

function recommendation(plan: Plan, name: string) {
  return plan.recommendations.find((r) => r.name === name);
}

/** The figures an architect decides on, each with its one-line why. */
export function keyFigures(plan: Plan, input: SizingInput, layout: PoolLayout, profile: Profile | undefined): Figure[] {
  const rec = (name: string) => recommendation(plan, name);
  const size = (name: string) => formatBytes(Number(rec(name)?.value ?? 0));
  const slogWhy = rec('slog_size')?.why ?? '';
  const l2arcWhy = rec('l2arc_size')?.why ?? '';
  const compression = plan.dataset.compression ?? profile?.dataset.compression ?? 'off';
  return [
    {
      key: 'layout',
      label: 'Pool layout',
      value: layoutWords(layout),
      why: 'The SAN array keeps the LUNs redundant, so ZFS stripes them; its SSDs add the write log and the read cache.',
    },
    { key: 'arc', label: 'ARC (RAM read cache)', value: size('zfs_arc_max'), why: rec('zfs_arc_max')?.why ?? '' },
    {
      key: 'l2arc',
      label: 'L2ARC (SSD read cache)',
      value: layout.cacheGib ? `${layout.cacheGib} GiB SSD` : 'None',
      why: layout.cacheGib
        ? `${size('l2arc_size')} of it is worth caching: ${l2arcWhy.replace(/^[\d.]+ GiB of SSD: /, '')}`
        : 'No cache SSD in step 3: reads the ARC misses go to the SAN.',
    },
    {
      key: 'slog',
      label: 'SLOG (SSD write log)',
      value: layout.logGib ? `${layout.logGib} GiB SSD${layout.logSsds === 2 ? ', mirrored' : ''}` : 'None',
      why: layout.logGib
        ? `The log holds at most ${size('slog_size')} of sync writes (${slogWhy.replace(/\.$/, '')}).`
        : `No log SSD in step 3. One of ${size('slog_size')} or more would take the sync writes (${slogWhy.replace(/\.$/, '')}).`,
    },
    {
      key: 'compression',
      label: 'Compression',
      value: compression,
      why: `${profile?.why.compression ?? ''} Sized for ${input.compression_ratio}x.`.trim(),
    },
    { key: 'recordsize', label: 'Record size', value: String(rec('recordsize')?.value ?? plan.dataset.recordsize ?? ''), why: rec('recordsize')?.why ?? '' },
    { key: 'offload', label: 'Expected read offload', value: `${plan.expected_read_offload}x`, why: rec('expected_read_offload')?.why ?? '' },
  ];
}

// A person's name for each value the calculator and the profiles set (the ZFS name is shown beside it).
const NAMES: Record<string, string> = {
  zfs_arc_max: 'ARC size',
  zfs_arc_min: 'ARC kept under memory pressure',
  l2arc_size: 'L2ARC worth caching',
  l2arc_write_max: 'L2ARC fill rate',
  l2arc_write_boost: 'L2ARC fill rate while warming',
  slog_size: 'Sync writes the log holds at most',
  zfs_txg_timeout: 'Transaction group interval',
  recordsize: 'Record size',
  zfs_prefetch_disable: 'Disable prefetch',
  l2arc_noprefetch: 'Keep prefetched blocks off the L2ARC',
  zio_dva_throttle_enabled: 'Allocation throttle',
  expected_read_offload: 'Expected read offload',
  compression: 'Compression',
  atime: 'Access times',
  xattr: 'Extended attributes',
  acltype: 'ACL type',
  logbias: 'Log bias',
  primarycache: 'What the ARC caches',
  secondarycache: 'What the L2ARC caches',
  sync: 'Sync writes',
  dedup: 'Deduplication',
  redundant_metadata: 'Redundant metadata',
};

export interface TuningRow extends Figure {
  /** the ZFS name: module parameter, dataset property or the calculator's figure */
  zfs: string;
}

/** Every value the appliance is tuned with, each once: the calculator's, then the profile's dataset properties. */
export function allTuning(plan: Plan, profile: Profile | undefined): TuningRow[] {
  const rows: TuningRow[] = plan.recommendations.map((r) => ({
    key: r.name,
    zfs: r.name,
    label: NAMES[r.name] ?? r.name,
    value: formatValue(r.name, r.value),
    why: r.why,
  }));
  const shown = new Set(rows.map((r) => r.zfs));
  for (const [name, value] of Object.entries(plan.dataset)) {
    if (shown.has(name) || value === null || value === undefined) continue;
    rows.push({ key: name, zfs: name, label: NAMES[name] ?? name, value: String(value), why: profile?.why[name] ?? '' });
  }
  return rows;
}
