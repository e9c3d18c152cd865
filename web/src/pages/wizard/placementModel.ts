// Step 2: where the appliances go. Pure functions over the vCenter inventory.
import type { Datastore, Host, Inventory } from '../../api/types';

const byName = <T extends { name: string }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));

export function datacenterMoid(inv: Inventory, datacenter: string): string | undefined {
  return inv.datacenters.find((dc) => dc.name === datacenter)?.moid;
}

export function clustersOf(inv: Inventory, datacenter: string) {
  const dc = datacenterMoid(inv, datacenter);
  return byName(inv.clusters.filter((c) => c.datacenter === dc));
}

/** The hosts of a cluster (by names, as the draft keeps them), sorted by name. */
export function hostsOf(inv: Inventory, datacenter: string, cluster: string): Host[] {
  const moid = clustersOf(inv, datacenter).find((c) => c.name === cluster)?.moid;
  return moid ? byName(inv.hosts.filter((h) => h.cluster === moid)) : [];
}

/** Why an appliance cannot go on this host now, or null when it can. */
export function unusable(host: Host): string | null {
  if (host.connection_state !== 'connected') return `not connected (${host.connection_state})`;
  if (host.in_maintenance) return 'in maintenance mode';
  return null;
}

export function freeCpuMhz(host: Host): number {
  return Math.max(0, host.cpu_mhz_total - host.cpu_mhz_used);
}

export function freeMemoryBytes(host: Host): number {
  return Math.max(0, host.memory_bytes - host.memory_used_bytes);
}

export function datastoresOf(inv: Inventory, host: Host): Datastore[] {
  return byName(inv.datastores.filter((ds) => host.datastores.includes(ds.moid)));
}

export function validatePlacement(inv: Inventory, datacenter: string, cluster: string, hosts: readonly string[]) {
  const errors: Record<string, string> = {};
  if (!datacenterMoid(inv, datacenter)) errors.datacenter = 'Choose the datacenter.';
  else if (!clustersOf(inv, datacenter).some((c) => c.name === cluster)) errors.cluster = 'Choose the cluster.';
  else {
    const inCluster = hostsOf(inv, datacenter, cluster);
    const chosen = inCluster.filter((h) => hosts.includes(h.name));
    const blocked = chosen.find((h) => unusable(h) !== null);
    if (chosen.length === 0) errors.hosts = 'Choose at least one host: each chosen host gets an appliance.';
    else if (blocked) errors.hosts = `${blocked.name} is ${unusable(blocked)}: clear it or bring it back first.`;
  }
  return errors;
}
