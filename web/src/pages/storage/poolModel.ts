// Pure helpers over the pools api's answers: layout, devices per role, who uses a disk, and the form rules.
import type { Disk, ZfsPoolLayout, ZfsPoolHealth, Vdev } from '../../api/storage';

export const LAYOUTS: { value: ZfsPoolLayout; label: string; min: number; hint: string }[] = [
  { value: 'stripe', label: 'Stripe', min: 1, hint: 'The SAN array gives redundancy; every LUN adds capacity and speed.' },
  { value: 'mirror', label: 'Mirror', min: 2, hint: 'LUNs in pairs: each block on two LUNs, half the capacity.' },
  { value: 'raidz1', label: 'RAID-Z1', min: 3, hint: 'One LUN of parity: survives the loss of any one LUN.' },
  { value: 'raidz2', label: 'RAID-Z2', min: 4, hint: 'Two LUNs of parity: survives the loss of any two LUNs.' },
];

export type Role = 'data' | 'log' | 'cache';

/** The layout of a pool's data vdevs as the create form names it ("mixed" if they differ). */
export function layoutOf(pool: ZfsPoolHealth): string {
  const top = pool.vdevs.filter((v) => v.role === 'data' && v.parent === null);
  const kinds = new Set(
    top.map((v) => {
      if (v.vdev_type === 'mirror') return 'mirror';
      if (v.vdev_type === 'raidz' || v.vdev_type.startsWith('raidz')) return v.name.match(/^raidz\d/)?.[0] ?? 'raidz';
      return 'stripe';
    }),
  );
  if (kinds.size === 0) return 'no data vdevs';
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

/** The layout new LUNs should get: the pool's own (zpool refuses a mismatch), stripe when unclear. */
export function growLayout(pool: ZfsPoolHealth): ZfsPoolLayout {
  const current = layoutOf(pool);
  return LAYOUTS.find((l) => l.value === current)?.value ?? 'stripe';
}

/** The leaf devices (disks) of a pool in one role. */
export function leaves(pool: ZfsPoolHealth, role: Role): Vdev[] {
  const parents = new Set(pool.vdevs.map((v) => v.parent).filter(Boolean));
  return pool.vdevs.filter((v) => v.role === role && !parents.has(v.name) && v.vdev_type !== 'root');
}

/** One line: "raidz1 of 3 LUNs · SLOG mirror of 2 · L2ARC 1 SSD". */
export function describePool(pool: ZfsPoolHealth): { layout: string; slog: string; l2arc: string } {
  const data = leaves(pool, 'data').length;
  const log = leaves(pool, 'log').length;
  const cache = leaves(pool, 'cache').length;
  const layout = layoutOf(pool);
  return {
    layout: `${layout} of ${data} ${data === 1 ? 'LUN' : 'LUNs'}`,
    slog: log === 0 ? 'none' : log === 1 ? '1 device' : `mirror of ${log}`,
    l2arc: cache === 0 ? 'none' : `${cache} ${cache === 1 ? 'device' : 'devices'}`,
  };
}

export function errorsOf(v: Vdev): number {
  return v.read_errors + v.write_errors + v.checksum_errors;
}

export type Level = 'ok' | 'warning' | 'error' | 'off';

/** How a ZFS state reads at a glance. */
export function stateLevel(state: string): Level {
  if (state === 'ONLINE') return 'ok';
  if (state === 'DEGRADED' || state === 'REMOVED') return 'warning';
  if (state === 'OFFLINE') return 'off';
  return 'error';
}

export interface DiskUser {
  pool: string;
  role: string;
}

// zpool labels a whole disk by partitioning it: the vdev path is the disk's path plus -part1 (by-id) or 1.
function sameDisk(vdevPath: string, disk: Disk): boolean {
  return [disk.path, disk.kernel_path].some(
    (p) => vdevPath === p || vdevPath === `${p}-part1` || vdevPath === `${p}1` || vdevPath === `${p}p1`,
  );
}

/** The disk behind a vdev (its size, for a replacement), when the disk list still has it. */
export function diskOfVdev(vdev: Vdev, disks: Disk[]): Disk | undefined {
  return vdev.path ? disks.find((d) => sameDisk(vdev.path!, d)) : undefined;
}

/** Which pool (and role) a disk belongs to, when one of the imported pools uses it. */
export function poolOfDisk(disk: Disk, pools: ZfsPoolHealth[]): DiskUser | null {
  for (const pool of pools) {
    for (const v of pool.vdevs) {
      if (v.path && sameDisk(v.path, disk)) return { pool: pool.name, role: v.role };
    }
  }
  return null;
}

/** Disks a new pool may use: not the system disk, not holding anything. */
export function freeDisks(disks: Disk[]): Disk[] {
  return disks.filter((d) => !d.system && !d.in_use);
}

export interface PoolDraft {
  name: string;
  layout: ZfsPoolLayout;
  roles: Record<string, Role | ''>;
}

export type PoolErrors = Partial<Record<'name' | 'data' | 'log', string>>;

// The api's rules (appliance/control/names.py), so most mistakes are shown before anything is sent.
const POOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,47}$/;
const RESERVED = new Set(['mirror', 'raidz', 'raidz1', 'raidz2', 'raidz3', 'draid', 'spare', 'log', 'cache', 'special', 'dedup']);

/** What is wrong with a pool name typed in (create, import), or undefined. */
export function poolNameError(typed: string): string | undefined {
  const name = typed.trim();
  if (!name) return 'Enter a pool name.';
  if (!POOL_NAME.test(name)) return 'Start with a letter, then letters, digits, _ or - (48 at most).';
  if (RESERVED.has(name.toLowerCase()) || /^c[0-9]/.test(name)) return `"${name}" is a name ZFS reserves.`;
  return undefined;
}

/** Whether `count` data LUNs make a vdev of `layout` (create, and growing a pool by one vdev). */
export function layoutError(value: ZfsPoolLayout, count: number): string | undefined {
  const layout = LAYOUTS.find((l) => l.value === value)!;
  if (count < layout.min) return `${layout.label} needs at least ${layout.min} data ${layout.min === 1 ? 'LUN' : 'LUNs'}.`;
  if (value === 'mirror' && count % 2) return 'A mirror takes data LUNs in pairs: pick an even number.';
  return undefined;
}

/** The form's own checks; the api checks again (and knows the devices). */
export function validatePool(draft: PoolDraft): PoolErrors {
  const errors: PoolErrors = {};
  const name = poolNameError(draft.name);
  if (name) errors.name = name;
  const data = layoutError(draft.layout, devicesOf(draft, 'data').length);
  if (data) errors.data = data;
  if (devicesOf(draft, 'log').length > 2) errors.log = 'A SLOG is one device, or two as a mirror.';
  return errors;
}

export function devicesOf(draft: PoolDraft, role: Role): string[] {
  return Object.entries(draft.roles)
    .filter(([, r]) => r === role)
    .map(([path]) => path);
}

/** Whether a dataset (or zvol) is the pool's root or lies below it: NFS from it blocks export and destroy. */
export function onPool(pool: string, dataset: string): boolean {
  return dataset === pool || dataset.startsWith(`${pool}/`);
}
