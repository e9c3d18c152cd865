import type { Host, Inventory, Snapshot, VirtualMachine } from '../../api/types';

/** moid → name, for showing references (a VM's host, a datastore's hosts) by name. */
export function namesByMoid(inv: Inventory): Map<string, string> {
  const names = new Map<string, string>();
  for (const list of [inv.datacenters, inv.clusters, inv.hosts, inv.datastores, inv.networks, inv.vms]) {
    for (const item of list) names.set(item.moid, item.name);
  }
  return names;
}

export function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
}

export interface Totals {
  cpuUsed: number;
  cpuTotal: number;
  memUsed: number;
  memTotal: number;
}

export function totals(hosts: readonly Host[]): Totals {
  return hosts.reduce(
    (sum, h) => ({
      cpuUsed: sum.cpuUsed + h.cpu_mhz_used,
      cpuTotal: sum.cpuTotal + h.cpu_mhz_total,
      memUsed: sum.memUsed + h.memory_used_bytes,
      memTotal: sum.memTotal + h.memory_bytes,
    }),
    { cpuUsed: 0, cpuTotal: 0, memUsed: 0, memTotal: 0 },
  );
}

export function countSnapshots(snapshots: readonly Snapshot[]): number {
  return snapshots.reduce((n, s) => n + 1 + countSnapshots(s.children ?? []), 0);
}

/** A golden image is what desktop pools clone from: a template, or a VM with a snapshot to link clones to. */
export function isGoldenImage(vm: VirtualMachine): boolean {
  return vm.template || vm.snapshots.length > 0;
}
