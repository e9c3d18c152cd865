// The demo's lab appliances playing the appliance VMs vcsim cannot run (api/wizard): what they fill in on
// the Back end step, and what they refuse. Pure functions over the draft and the vCenter inventory.
import type { Inventory } from '../../api/types';
import type { StandIn } from '../../api/wizard';
import { GIB, lunDatastores, ssdDatastores } from './backendModel';
import type { Draft, LunChoice } from './draft';

type Backend = Draft['backend'];

/** The disk's name as the appliance shows it: the last part of its by-id path, without virtio-. */
export const diskName = (guestPath: string) => guestPath.replace(/^.*\//, '').replace(/^virtio-/, '');

/** The LUNs and SSDs of the host's appliance as the stand-in has them: thin VMDKs of the same sizes on the
 * host's first datastores, each found in the stand-in by its guest path. */
export function standInLuns(inv: Inventory, host: string, standIn: StandIn): LunChoice[] {
  const lunDs = lunDatastores(inv, host)[0]?.name ?? '';
  const ssdDs = ssdDatastores(inv, host)[0]?.ds.name ?? lunDs;
  return standIn.disks.map((disk) => {
    const sizeGb = Math.max(1, Math.ceil(disk.size_bytes / GIB));
    if (disk.role === 'data') return { kind: 'vmdk', datastore: lunDs, sizeGb, guestPath: disk.guest_path };
    return { kind: 'vmdk', datastore: ssdDs, sizeGb, guestPath: disk.guest_path, role: disk.role };
  });
}

/** The back end with each stand-in filled in for the host it plays (the first chosen host gets the first
 * stand-in): its api address, and its disks where the admin has given that host none yet; hosts in `skip`
 * are left as they are. null: nothing to fill. */
export function withStandIns(inv: Inventory, draft: Draft, standIns: readonly StandIn[], skip: ReadonlySet<string> = new Set()): Backend | null {
  const b = draft.backend;
  let changed = false;
  const apiEndpoints = { ...b.apiEndpoints };
  const luns = { ...b.luns };
  draft.hosts.forEach((host, i) => {
    const standIn = standIns[i];
    if (!standIn || skip.has(host)) return;
    if (!apiEndpoints[host]) {
      apiEndpoints[host] = standIn.endpoint;
      changed = true;
    }
    if ((luns[host] ?? []).length === 0) {
      luns[host] = standInLuns(inv, host, standIn);
      changed = true;
    }
  });
  return changed ? { ...b, apiEndpoints, luns } : null;
}

/** Hosts chosen beyond the stand-ins there are: nothing would play their appliances. */
export function standInErrors(draft: Draft, standIns: readonly StandIn[]): Record<string, string> {
  if (standIns.length === 0 || draft.hosts.length <= standIns.length) return {};
  const n = standIns.length;
  const errors: Record<string, string> = {};
  for (const host of draft.hosts.slice(n)) {
    errors[`luns:${host}`] =
      `The lab runs ${n} appliance${n === 1 ? '' : 's'}: no appliance can run on ${host}. Go back to Placement and choose ${n === 1 ? 'one host' : `${n} hosts`}.`;
  }
  return errors;
}
