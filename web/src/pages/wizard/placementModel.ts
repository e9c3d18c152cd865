// Step 2: where the appliances go. Pure functions over the vCenter inventory.
import type { Datastore, Host, Inventory } from '../../api/types';
import { formatBytes, formatMhz } from '../../format';
import { badAddress, parseClients } from '../storage/exportModel';

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

/** What an appliance of a size takes on its host (ovf/hardware.py); weighed as provisioning/diff.py does. */
export interface ApplianceSize {
  label: string;
  vcpus: number;
  ramGib: number;
}

const GIB = 1024 ** 3;

/** The OVA's deployment options as a host weighs them (ovf/hardware.py APPLIANCE_HARDWARE.options). */
export const APPLIANCE_SIZES: Record<'small' | 'medium' | 'large', ApplianceSize> = {
  small: { label: 'Small', vcpus: 2, ramGib: 8 },
  medium: { label: 'Medium', vcpus: 4, ramGib: 16 },
  large: { label: 'Large', vcpus: 8, ramGib: 32 },
};

/** Why an appliance of `size` does not fit the host now (its RAM free, a free core per vCPU), or null. */
export function noRoom(host: Host, size: ApplianceSize): string | null {
  const memory = size.ramGib * GIB;
  if (memory > freeMemoryBytes(host)) {
    return `${formatBytes(freeMemoryBytes(host))} of memory free: a ${size.label} appliance needs ${formatBytes(memory)}`;
  }
  if (size.vcpus > host.cpu_cores) return `${host.cpu_cores} CPU cores: a ${size.label} appliance has ${size.vcpus} vCPUs`;
  const cpu = host.cpu_cores > 0 ? size.vcpus * (host.cpu_mhz_total / host.cpu_cores) : 0;
  if (cpu > freeCpuMhz(host)) {
    return `${formatMhz(freeCpuMhz(host))} of CPU free: a ${size.label} appliance needs ${formatMhz(cpu)} (${size.vcpus} cores)`;
  }
  return null;
}

/** The value to preselect when there is exactly one choice (the only datacenter, the only cluster). */
export function onlyChoice<T extends { name: string }>(items: readonly T[]): string {
  return items.length === 1 ? (items[0]?.name ?? '') : '';
}

export function datastoresOf(inv: Inventory, host: Host): Datastore[] {
  return byName(inv.datastores.filter((ds) => host.datastores.includes(ds.moid)));
}

export function validatePlacement(
  inv: Inventory,
  datacenter: string,
  cluster: string,
  hosts: readonly string[],
  size: ApplianceSize,
) {
  const errors: Record<string, string> = {};
  if (!datacenterMoid(inv, datacenter)) errors.datacenter = 'Choose the datacenter.';
  else if (!clustersOf(inv, datacenter).some((c) => c.name === cluster)) errors.cluster = 'Choose the cluster.';
  else {
    const inCluster = hostsOf(inv, datacenter, cluster);
    const chosen = inCluster.filter((h) => hosts.includes(h.name));
    const blocked = chosen.find((h) => unusable(h) !== null);
    if (chosen.length === 0) errors.hosts = 'Choose at least one host: each chosen host gets an appliance.';
    else if (blocked) errors.hosts = `${blocked.name} is ${unusable(blocked)}: clear it or bring it back first.`;
    else {
      const full = chosen.find((h) => noRoom(h, size) !== null);
      if (full) {
        errors.hosts = `${full.name} has ${noRoom(full, size)}: clear it, free room on it, or choose a smaller size in the Back end step.`;
      }
    }
  }
  return errors;
}

/** Each host of the cluster with the VMkernel addresses it mounts NFS from (management-tagged or untagged NICs). */
export function nfsAddressesOf(inv: Inventory, datacenter: string, cluster: string): { host: string; addresses: string[] }[] {
  return hostsOf(inv, datacenter, cluster).map((h) => ({ host: h.name, addresses: (h.vmkernel ?? []).filter((n) => n.nfs).map((n) => n.address) }));
}

/** The export's clients when the admin gives none: every address above, once, sorted (as provisioning/diff.py). */
export function defaultNfsClients(hosts: readonly { addresses: string[] }[]): string[] {
  return [...new Set(hosts.flatMap((h) => h.addresses))].sort();
}

/** The refusal of an edited clients list ({nfsClients: why}), or none. */
export function nfsClientsErrors(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  const clients = parseClients(value);
  const bad = badAddress(clients);
  if (clients.length === 0) return { nfsClients: "Enter at least one host's VMkernel address, or use the hosts' addresses." };
  if (bad) return { nfsClients: `"${bad}" is not the IP address of one host (no names, no networks).` };
  return {};
}
