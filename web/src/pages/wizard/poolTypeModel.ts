// Step 4: the desktop pool's type, its NFS datastore, and what the sizing calculator is fed.
import type { DesktopPoolType, SizingInput } from '../../api/storage';
import type { Inventory } from '../../api/types';
import { SIZES } from './backendModel';
import { MAX_DESKTOPS } from './desktopsModel';
import type { Draft } from './draft';
import { poolLayout } from './tuningFigures';

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/;
// provisioning/plan.py DeploymentPlan: /<pool>/<dataset>, the appliances build both
const PATH = /^\/[A-Za-z0-9][A-Za-z0-9_.-]*(\/[A-Za-z0-9][A-Za-z0-9_.:-]*)+$/;
/**
 * What a desktop is expected to write of its own (the plan's pool.delta_gb, toPlan's value): a linked
 * clone's delta disk, and as much for a full clone, which toPlan makes a ZFS clone sharing the golden's blocks.
 */
export const DESKTOP_DELTA_GIB = 2;

export function poolTypeOf(storage: Draft['storage']): DesktopPoolType {
  return `${storage.persistence}-${storage.clone}`;
}

export function validatePoolType(inv: Inventory | undefined, draft: Draft, goldenGib: string): Record<string, string> {
  const errors: Record<string, string> = {};
  const { datastoreName, path } = draft.storage;
  const name = datastoreName.trim();
  if (!name) errors.datastoreName = 'Enter the name of the NFS datastore.';
  else if (name.length > 80) errors.datastoreName = 'Use at most 80 characters.';
  else if (!NAME.test(name)) errors.datastoreName = 'Use letters, digits, spaces, dots, dashes and underscores; start with a letter or digit.';
  else if (draft.deploymentId === null && inv?.datastores.some((ds) => ds.name === name)) {
    errors.datastoreName = `vCenter already has a datastore named ${name}: choose another name.`;
  }
  if (!path.trim()) errors.path = 'Enter the path the appliances export, e.g. /tank/vdi.';
  else if (!PATH.test(path)) errors.path = 'Give /<pool>/<dataset>, e.g. /tank/vdi: letters, digits, dots, dashes and underscores.';
  else if (!/^\/[A-Za-z]/.test(path)) errors.path = 'A ZFS pool name starts with a letter, e.g. /tank/vdi.';
  const count = draft.desktops.count;
  if (!Number.isInteger(count) || count < 1 || count > MAX_DESKTOPS) errors.count = `Enter a number of desktops from 1 to ${MAX_DESKTOPS}.`;
  const golden = Number(goldenGib);
  if (!goldenGib.trim() || !Number.isFinite(golden) || golden <= 0) errors.goldenGib = 'Enter the golden image’s size in GiB.';
  return errors;
}

/** The calculator's input for one appliance of this deployment, or null while an input is missing. */
export function sizingInput(draft: Draft, goldenGib: string): SizingInput | null {
  const golden = Number(goldenGib);
  const count = draft.desktops.count;
  const hosts = Math.max(1, draft.hosts.length);
  if (!Number.isInteger(count) || count < 1 || !(golden > 0)) return null;
  const ramGib = SIZES.find((s) => s.value === draft.backend.size)?.ramGib ?? 8;
  return {
    pool_type: poolTypeOf(draft.storage),
    desktops: Math.ceil(count / hosts),
    desktop_gib: DESKTOP_DELTA_GIB,
    golden_gib: golden,
    ram_gib: ramGib,
    // The SLOG and L2ARC SSDs chosen in step 3 for the first appliance (0 without): the figures step 4 shows
    l2arc_ssd_gib: poolLayout(draft).cacheGib,
    slog_ssd_gib: poolLayout(draft).logGib,
    write_mib_s: 20,
    compression_ratio: 1.7,
  };
}
