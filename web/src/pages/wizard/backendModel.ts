// Step 3: the appliances and their SAN LUNs. Pure functions over the draft and the vCenter inventory.
import type { Datastore, Host, Inventory, Network } from '../../api/types';
import { EMPTY, isSsd, type Draft, type LunChoice } from './draft';

export type Size = Draft['backend']['size'];

/** The OVA's deployment options (ovf/hardware.py APPLIANCE_HARDWARE.options). */
export const SIZES: { value: Size; label: string; hint: string; ramGib: number }[] = [
  { value: 'small', label: 'Small (2 vCPU, 8 GiB RAM)', hint: 'Smallest read cache in RAM: trials and lightly loaded hosts.', ramGib: 8 },
  { value: 'medium', label: 'Medium (4 vCPU, 16 GiB RAM)', hint: 'Twice the RAM of small for the read cache.', ramGib: 16 },
  { value: 'large', label: 'Large (8 vCPU, 32 GiB RAM)', hint: 'Four times the RAM of small for the read cache: dense desktop hosts.', ramGib: 32 },
];

export const GIB = 1024 ** 3;
/** File and object datastores: not a LUN of the host, so not a place for a pool's disks. */
const NOT_A_LUN = new Set(['NFS', 'NFS41', 'VSAN', 'VVOL']);

const hostsByName = (inv: Inventory, names: readonly string[]) => inv.hosts.filter((h) => names.includes(h.name));

/** Datastores every chosen host mounts (an appliance's boot disk can go on them, whichever host it is on). */
export function sharedDatastores(inv: Inventory, hosts: readonly string[]): Datastore[] {
  const chosen = hostsByName(inv, hosts);
  return inv.datastores.filter((ds) => ds.accessible && chosen.length > 0 && chosen.every((h) => h.datastores.includes(ds.moid)));
}

/** Port groups every chosen host sees. */
export function sharedNetworks(inv: Inventory, hosts: readonly string[]): Network[] {
  const chosen = hostsByName(inv, hosts);
  return inv.networks.filter((n) => chosen.length > 0 && chosen.every((h) => h.networks.includes(n.moid)));
}

/** Datastores of one host a LUN VMDK can go on: VMFS (or another block type vCenter names), accessible. */
export function lunDatastores(inv: Inventory, host: string): Datastore[] {
  const h = inv.hosts.find((x) => x.name === host);
  return inv.datastores.filter((ds) => h?.datastores.includes(ds.moid) && ds.accessible && !NOT_A_LUN.has(ds.type.toUpperCase()));
}

export type HostLun = Host['luns'][number];

/** The host's disks an appliance on it can map raw: not holding VMFS, not mapped by another host's appliance. */
export function rdmLuns(inv: Inventory, draft: Draft, host: string): HostLun[] {
  const elsewhere = new Set(
    draft.hosts.filter((h) => h !== host).flatMap((h) => (draft.backend.luns[h] ?? []).flatMap((l) => (l.kind === 'rdm' ? [l.lun] : []))),
  );
  const luns = inv.hosts.find((h) => h.name === host)?.luns ?? [];
  return luns.filter((l) => !l.vmfs && !elsewhere.has(l.canonical_name));
}

/** provisioning/plan.py GuestPath */
const GUEST_PATH = /^\/dev\/disk\/by-id\/[A-Za-z0-9._:+-]+$/;

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const wholeIn = (text: string, low: number, high: number) => /^\d+$/.test(text) && Number(text) >= low && Number(text) <= high;
const PREFIX_REFUSAL = 'Enter a prefix length from 1 to 32 (24 for 255.255.255.0).';

/** Property values without the storage NIC's (storage_mode, storage_address, storage_prefix, storage_mtu): those
 * are fields of their own, and the api refuses them without a storage port group. */
export function withoutStorage(properties: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(properties ?? {}).filter(([key]) => !key.startsWith('storage_')));
}

export function sameSubnet(a: string, b: string, prefix: number): boolean {
  const block = 2 ** (32 - prefix);
  return Math.floor(toNumber(a) / block) === Math.floor(toNumber(b) / block);
}

const ENDPOINT = /^[A-Za-z0-9.\-[\]:]+:(\d{1,5})$/;

export function lunKey(host: string, index: number, part: 'datastore' | 'size' | 'lun' | 'guestPath') {
  return `lun:${host}:${index}:${part}`;
}

function lunErrors(inv: Inventory, draft: Draft, errors: Record<string, string>) {
  const taken = new Map<string, number>(); // datastore → GiB asked for so far, over every host (shared ones)
  const mapped = new Map<string, string>(); // LUN mapped raw → by which appliance, over every host
  for (const host of draft.hosts) {
    const hostLuns = inv.hosts.find((h) => h.name === host)?.luns ?? [];
    const guestPaths = new Map<string, number>();
    const luns: LunChoice[] = (draft.backend.luns[host] ?? []).filter((l) => !isSsd(l)); // the SSDs: ssdErrors
    if (luns.length === 0) errors[`luns:${host}`] = `Give the appliance on ${host} at least one LUN for its pool.`;
    const candidates = lunDatastores(inv, host);
    luns.forEach((lun, i) => {
      const guestPath = (lun.guestPath ?? '').trim();
      if (guestPath && (!GUEST_PATH.test(guestPath) || guestPath.length < 17 || guestPath.length > 200)) {
        errors[lunKey(host, i, 'guestPath')] = 'Give a /dev/disk/by-id/… path (letters, digits and . _ : + -), or leave it empty.';
      } else if (guestPath && guestPaths.has(guestPath)) {
        errors[lunKey(host, i, 'guestPath')] = `LUN ${(guestPaths.get(guestPath) ?? 0) + 1} already has this guest path.`;
      } else if (guestPath) guestPaths.set(guestPath, i);
      if (lun.kind === 'rdm') {
        const found = hostLuns.find((l) => l.canonical_name === lun.lun);
        if (!found) errors[lunKey(host, i, 'lun')] = `Choose a LUN ${host} sees.`;
        else if (found.vmfs) errors[lunKey(host, i, 'lun')] = `${lun.lun} holds a VMFS datastore: it cannot be mapped raw.`;
        else if (mapped.has(lun.lun)) errors[lunKey(host, i, 'lun')] = `${lun.lun} is already mapped by ${mapped.get(lun.lun)}.`;
        else mapped.set(lun.lun, `LUN ${i + 1} of ${host}`);
        return;
      }
      const ds = candidates.find((d) => d.name === lun.datastore);
      if (!ds) {
        errors[lunKey(host, i, 'datastore')] = `Choose a VMFS datastore ${host} sees.`;
        return;
      }
      const size = lun.sizeGb;
      if (!Number.isInteger(size) || size < 1) {
        errors[lunKey(host, i, 'size')] = 'Enter the size in whole GiB (at least 1).';
        return;
      }
      const free = Math.floor(ds.free_bytes / GIB);
      const total = (taken.get(ds.name) ?? 0) + size;
      taken.set(ds.name, total);
      if (size > free) errors[lunKey(host, i, 'size')] = `${size} GiB is more than the ${free} GiB free on ${ds.name}.`;
      else if (total > free) {
        errors[lunKey(host, i, 'size')] = `With the LUNs above, ${total} GiB on ${ds.name}: more than its ${free} GiB free.`;
      }
    });
  }
}

function networkErrors(draft: Draft, errors: Record<string, string>) {
  const p = draft.backend.properties;
  const prefixText = (p.ipv4_prefix ?? '').trim();
  const prefix = Number(prefixText);
  const prefixOk = wholeIn(prefixText, 1, 32);
  if (!prefixOk) errors.ipv4_prefix = PREFIX_REFUSAL;
  const seen = new Map<string, string>();
  for (const host of draft.hosts) {
    const address = (draft.backend.addresses[host] ?? '').trim();
    const key = `address:${host}`;
    if (!address) errors[key] = `Enter the IPv4 address of the appliance on ${host}.`;
    else if (!isIpv4(address)) errors[key] = `${address} is not an IPv4 address (four numbers 0–255, e.g. 192.0.2.10).`;
    else if (seen.has(address)) errors[key] = `${address} is already the address of the appliance on ${seen.get(address)}.`;
    else seen.set(address, host);
  }
  const gateway = (p.ipv4_gateway ?? '').trim();
  if (gateway && !isIpv4(gateway)) errors.ipv4_gateway = `${gateway} is not an IPv4 address.`;
  else if (gateway && prefixOk) {
    const outside = [...seen.keys()].find((a) => !sameSubnet(a, gateway, prefix));
    if (outside) errors.ipv4_gateway = `The gateway is not in ${outside}/${prefix}: check the prefix or the gateway.`;
  }
  const dns = (p.dns_servers ?? '').split(/[\s,]+/).filter(Boolean);
  const badDns = dns.find((s) => !isIpv4(s));
  if (badDns) errors.dns_servers = `${badDns} is not an IPv4 address: give DNS servers as IPv4 addresses.`;
  const ntp = (p.ntp_servers ?? '').split(/[\s,]+/).filter(Boolean);
  const badNtp = ntp.find((s) => !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(s));
  if (badNtp) errors.ntp_servers = `${badNtp} is not a host name or IPv4 address.`;
}

/** The storage NIC's answers, with their defaults (a draft saved before they were asked has none). */
export function storageOf(backend: Draft['backend']) {
  return {
    network: backend.storageNetwork ?? '',
    addresses: backend.storageAddresses ?? {},
    prefix: backend.storagePrefix ?? EMPTY.backend.storagePrefix ?? '',
    mtu: backend.storageMtu ?? EMPTY.backend.storageMtu ?? '',
  };
}

/** The storage port group and, with one, each appliance's storage address, the prefix and the MTU
 * (provisioning/plan.py Fleet._storage_network says the same, and the api refuses it again). */
function storageErrors(inv: Inventory, draft: Draft, errors: Record<string, string>) {
  const storage = storageOf(draft.backend);
  if (!storage.network) return;
  if (!sharedNetworks(inv, draft.hosts).some((n) => n.name === storage.network)) {
    errors.storageNetwork = 'Choose a port group every chosen host sees, or none.';
  }
  if (!wholeIn(storage.prefix.trim(), 1, 32)) errors.storagePrefix = PREFIX_REFUSAL;
  if (!wholeIn(storage.mtu.trim(), 1280, 9000)) errors.storageMtu = 'Enter an MTU from 1280 to 9000 (1500, or 9000 for jumbo frames).';
  const seen = new Map<string, string>();
  for (const host of draft.hosts) {
    const address = (storage.addresses[host] ?? '').trim();
    const key = `storageAddress:${host}`;
    if (!address) errors[key] = `Enter the storage address of the appliance on ${host}.`;
    else if (!isIpv4(address)) errors[key] = `${address} is not an IPv4 address (four numbers 0–255, e.g. 198.51.100.10).`;
    else if (address === (draft.backend.addresses[host] ?? '').trim()) errors[key] = 'This is its IPv4 address: the storage NIC needs one of its own.';
    else if (seen.has(address)) errors[key] = `${address} is already the storage address of the appliance on ${seen.get(address)}.`;
    else seen.set(address, host);
  }
}

/**
 * The step-3 field a plan field the api refused is asked by (a key of validateBackend's errors), so Review's
 * refusal is shown beside it; null when this step has no field of its own for it (Review's words then show
 * above the form). `hosts`: the chosen hosts, in the plan's appliance order; `storage`: a storage port group is chosen.
 */
export function backendFieldOf(apiField: string, hosts: readonly string[], storage: boolean): string | null {
  const field = apiField.replace(/^plan\.?/, '');
  const fixed: Record<string, string> = {
    'fleet.ova_path': 'ovaPath',
    'fleet.size': 'size',
    'fleet.network': 'network',
    'fleet.storage_network': 'storageNetwork',
    'fleet.datastore': 'bootDatastore',
    'fleet.admin_password': 'adminPassword',
  };
  if (fixed[field]) return fixed[field];
  const property = /^fleet\.(?:appliances\.(\d+)\.)?properties\.([a-z0-9_]+)$/.exec(field);
  if (property) {
    const host = property[1] === undefined ? undefined : hosts[Number(property[1])];
    const key = property[2];
    if (key === 'storage_prefix') return 'storagePrefix';
    if (key === 'storage_mtu') return 'storageMtu';
    if (key === 'storage_mode') return 'storageNetwork';
    if (key === 'storage_address') return host ? `storageAddress:${host}` : 'storageNetwork';
    if (key === 'ipv4_address' && host) return `address:${host}`;
    if (property[1] === undefined && ['ipv4_prefix', 'ipv4_gateway', 'dns_servers', 'ntp_servers'].includes(key ?? '')) return key ?? null;
    return null;
  }
  // the datastore's server is the first appliance's address: its storage address with a storage port group
  if (field === 'nfs.server' && hosts[0]) return `${storage ? 'storageAddress' : 'address'}:${hosts[0]}`;
  return null;
}

/** Every refusal of step 3, keyed by field; empty when the step's answers can go on. */
export function validateBackend(inv: Inventory, draft: Draft, passwordConfirm: string): Record<string, string> {
  const errors: Record<string, string> = {};
  const b = draft.backend;
  if (!SIZES.some((s) => s.value === b.size)) errors.size = 'Choose the appliance size.';
  if (!b.ovaPath.trim()) errors.ovaPath = 'Enter the path of the arcvsa OVA on the machine running arcvsa.';
  else if (!b.ovaPath.trim().startsWith('/')) errors.ovaPath = 'Give the full path, starting with /.';
  if (!sharedNetworks(inv, draft.hosts).some((n) => n.name === b.network)) errors.network = 'Choose the port group of the NFS network.';
  if (!sharedDatastores(inv, draft.hosts).some((d) => d.name === b.bootDatastore)) {
    errors.bootDatastore = 'Choose a datastore every chosen host sees, for the appliances’ boot disks.';
  }
  networkErrors(draft, errors);
  storageErrors(inv, draft, errors);
  lunErrors(inv, draft, errors);
  ssdErrors(inv, draft, errors);
  for (const host of draft.hosts) {
    const endpoint = (b.apiEndpoints[host] ?? '').trim();
    const port = ENDPOINT.exec(endpoint)?.[1];
    if (endpoint && (!port || Number(port) < 1 || Number(port) > 65535)) {
      errors[`endpoint:${host}`] = 'Give host:port, e.g. 192.0.2.10:443 (or leave it empty).';
    }
  }
  if (b.adminPassword.length < 8 || b.adminPassword.length > 128) {
    errors.adminPassword = 'Enter a password of 8 to 128 characters.';
  } else if (passwordConfirm !== b.adminPassword) errors.adminPasswordConfirm = 'The two passwords differ.';
  return errors;
}

// --- the SLOG and L2ARC SSDs (BackendSsdFields): VMDKs on a datastore of the host, after its SAN LUNs ---

/** The error key of a host's SLOG ('log') or L2ARC ('cache') SSD field. */
export function ssdKey(host: string, role: 'log' | 'cache', part: 'datastore' | 'size') {
  return `ssd:${host}:${role}:${part}`;
}

/** The host's datastores a SLOG or L2ARC VMDK can go on, SSD-backed ones first (every LUN of it an SSD). */
export function ssdDatastores(inv: Inventory, host: string): { ds: Datastore; ssd: boolean }[] {
  const luns = inv.hosts.find((x) => x.name === host)?.luns ?? [];
  const ssdLun = (name: string) => luns.find((l) => l.canonical_name === name)?.ssd === true;
  const all = lunDatastores(inv, host).map((ds) => ({ ds, ssd: ds.luns.length > 0 && ds.luns.every(ssdLun) }));
  return [...all.filter((d) => d.ssd), ...all.filter((d) => !d.ssd)];
}

function ssdErrors(inv: Inventory, draft: Draft, errors: Record<string, string>) {
  // GiB asked for on each datastore: every host's SAN LUN VMDKs first, then the SSDs as they come
  const taken = new Map<string, number>();
  const all = draft.hosts.flatMap((h) => draft.backend.luns[h] ?? []);
  for (const lun of all) if (lun.kind === 'vmdk' && !isSsd(lun)) taken.set(lun.datastore, (taken.get(lun.datastore) ?? 0) + lun.sizeGb);
  for (const host of draft.hosts) {
    const ssds = (draft.backend.luns[host] ?? []).filter(isSsd);
    if (ssds.filter((l) => l.role === 'log').length > 2) errors[`luns:${host}`] = `At most two SLOG SSDs (a mirror) on ${host}.`;
    const candidates = lunDatastores(inv, host);
    for (const ssd of ssds) {
      if (ssd.kind !== 'vmdk' || (ssd.role !== 'log' && ssd.role !== 'cache')) continue;
      const what = ssd.role === 'log' ? 'SLOG' : 'L2ARC';
      const ds = candidates.find((d) => d.name === ssd.datastore);
      if (!ds) {
        errors[ssdKey(host, ssd.role, 'datastore')] = `Choose a datastore ${host} sees for the ${what} SSD.`;
        continue;
      }
      if (!Number.isInteger(ssd.sizeGb) || ssd.sizeGb < 1) {
        errors[ssdKey(host, ssd.role, 'size')] = 'Enter the size in whole GiB (at least 1).';
        continue;
      }
      const free = Math.floor(ds.free_bytes / GIB);
      const total = (taken.get(ds.name) ?? 0) + ssd.sizeGb;
      taken.set(ds.name, total);
      if (total > free) errors[ssdKey(host, ssd.role, 'size')] = `With the disks above, ${total} GiB on ${ds.name}: more than its ${free} GiB free.`;
    }
  }
}

/** The SLOG and L2ARC GiB (VMDKs) of the first host's appliance: the one whose export every host mounts (toPlan). */
export function ssdGib(draft: Draft): { slog: number; l2arc: number } {
  const disks = draft.backend.luns[draft.hosts[0] ?? ''] ?? [];
  const sum = (role: 'log' | 'cache') => disks.reduce((n, l) => n + (l.role === role && l.kind === 'vmdk' && l.sizeGb > 0 ? l.sizeGb : 0), 0);
  return { slog: sum('log'), l2arc: sum('cache') };
}
