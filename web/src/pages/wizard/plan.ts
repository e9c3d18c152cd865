import type { components } from '../../api/schema';
import { parseClients } from '../storage/exportModel';
import { storageOf, withoutStorage } from './backendModel';
import type { Draft, LunChoice } from './draft';
import { DESKTOP_DELTA_GIB } from './poolTypeModel';

export type DeploymentPlan = components['schemas']['DeploymentPlan'];

function lunDisk(choice: LunChoice) {
  const disk = choice.kind === 'rdm' ? { rdm_lun: choice.lun } : { datastore: choice.datastore, size_gb: choice.sizeGb };
  const guestPath = choice.guestPath?.trim();
  const withRole = { ...disk, role: choice.role ?? 'data' };
  return guestPath ? { ...withRole, guest_path: guestPath } : withRole;
}

/** The VM (and host) name of the appliance on the i-th chosen host: arcvsa-01, arcvsa-02 ... from `first`
 * on (a deployment beside others numbers on after theirs: a VM name is one deployment's alone). */
export function applianceName(i: number, first = 1): string {
  return `arcvsa-${String(i + first).padStart(2, '0')}`;
}

/** The DeploymentPlan the api stores for the draft (it validates it again, and says which field is wrong). */
export function toPlan(draft: Draft): DeploymentPlan {
  const { backend, storage, desktops } = draft;
  // With a storage port group each appliance has a storage address, and the hosts mount NFS there; without
  // one no storage_* property is sent (the api refuses them: they would configure an unplugged NIC).
  const nic = storageOf(backend);
  const storageNetwork = nic.network || null;
  const storageAddress = (host: string): Record<string, string> => (storageNetwork ? { storage_address: (nic.addresses[host] ?? '').trim() } : {});
  const properties = withoutStorage(backend.properties);
  const first = draft.hosts[0] ?? '';
  const appliances = draft.hosts.map((host, i) => ({
    host,
    name: applianceName(i, draft.firstAppliance),
    properties: { hostname: applianceName(i, draft.firstAppliance), ipv4_address: backend.addresses[host] ?? '', ...storageAddress(host) },
    disks: (backend.luns[host] ?? []).map(lunDisk),
    ...(backend.apiEndpoints[host] ? { api_endpoint: backend.apiEndpoints[host] } : {}),
  }));
  const horizon = desktops.horizon;
  return {
    name: desktops.name,
    datacenter: draft.datacenter,
    cluster: draft.cluster,
    fleet: {
      ova_path: backend.ovaPath,
      size: backend.size,
      network: backend.network,
      storage_network: storageNetwork,
      datastore: backend.bootDatastore,
      properties: storageNetwork ? { ...properties, storage_prefix: nic.prefix.trim(), storage_mtu: nic.mtu.trim() } : properties,
      admin_password: backend.adminPassword,
      appliances,
      health_timeout_s: 600,
    },
    nfs: {
      name: storage.datastoreName,
      // Every host mounts the first appliance's export (it holds the golden image), on the storage network if any.
      server: (storageNetwork ? nic.addresses[first] : backend.addresses[first])?.trim() ?? '',
      path: storage.path,
      version: storage.nfsVersion,
      ...(backend.nfsClients !== undefined ? { clients: parseClients(backend.nfsClients) } : {}),
    },
    pool: {
      name: desktops.name,
      persistence: storage.persistence,
      clone: storage.clone,
      count: desktops.count,
      naming: desktops.naming,
      first_number: desktops.firstNumber,
      folder: desktops.folder,
      golden_vm: desktops.goldenVm,
      snapshot: desktops.snapshot,
      datastore: storage.datastoreName,
      vcpus: desktops.vcpus,
      memory_mb: desktops.memoryMb,
      // Full clones are ZFS clones of the golden's files on the appliance: instant, and they share blocks.
      full_copy: storage.clone === 'full' ? 'zfs' : 'vsphere',
      concurrency: 8,
      power_on: true,
      delta_gb: DESKTOP_DELTA_GIB,
      memory_overcommit: 4,
      ...(desktops.customizationSpec ? { customization_spec: desktops.customizationSpec } : {}),
    },
    ...(horizon
      ? {
          horizon: {
            endpoint: horizon.endpoint,
            username: horizon.username,
            domain: horizon.domain,
            password: horizon.password,
            vcenter: horizon.vcenter,
          },
        }
      : {}),
  };
}
