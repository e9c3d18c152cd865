// Step 3: the appliances and their SAN LUNs. Pure functions over the draft and the vCenter inventory.
import type { Datastore, Inventory, Network } from '../../api/types';
import type { Draft, LunChoice } from './draft';

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

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

function toNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

export function sameSubnet(a: string, b: string, prefix: number): boolean {
  const block = 2 ** (32 - prefix);
  return Math.floor(toNumber(a) / block) === Math.floor(toNumber(b) / block);
}

const ENDPOINT = /^[A-Za-z0-9.\-[\]:]+:(\d{1,5})$/;

export function lunKey(host: string, index: number, part: 'datastore' | 'size') {
  return `lun:${host}:${index}:${part}`;
}

function lunErrors(inv: Inventory, draft: Draft, errors: Record<string, string>) {
  const taken = new Map<string, number>(); // datastore → GiB asked for so far, over every host (shared ones)
  for (const host of draft.hosts) {
    const luns: LunChoice[] = draft.backend.luns[host] ?? [];
    if (luns.length === 0) errors[`luns:${host}`] = `Give the appliance on ${host} at least one LUN for its pool.`;
    const candidates = lunDatastores(inv, host);
    luns.forEach((lun, i) => {
      if (lun.kind !== 'vmdk') return;
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
  const prefixOk = /^\d+$/.test(prefixText) && prefix >= 1 && prefix <= 32;
  if (!prefixOk) errors.ipv4_prefix = 'Enter a prefix length from 1 to 32 (24 for 255.255.255.0).';
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
  lunErrors(inv, draft, errors);
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
