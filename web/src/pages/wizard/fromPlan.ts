import type { Deployment, DeploymentPlan } from '../../api/deployments';
import { EMPTY, type Draft, type LunChoice, STEPS } from './draft';
import { withoutStorage } from './backendModel';

const APPLIANCE = /^arcvsa-(\d+)$/;

type Disk = NonNullable<NonNullable<Deployment['plan']['fleet']>['appliances'][number]['disks']>[number];

function lunChoice(disk: Disk): LunChoice {
  const base: LunChoice = disk.rdm_lun ? { kind: 'rdm', lun: disk.rdm_lun } : { kind: 'vmdk', datastore: disk.datastore ?? '', sizeGb: disk.size_gb ?? 0 };
  return {
    ...base,
    ...(disk.guest_path ? { guestPath: disk.guest_path } : {}),
    ...(disk.role === 'log' || disk.role === 'cache' ? { role: disk.role } : {}),
  };
}

/**
 * A stored deployment back as the wizard's draft (the inverse of plan.toPlan), to edit it: every step is
 * reachable, the passwords are empty (asked for when a job needs them), `jobId` its latest job.
 */
export function fromPlan(deployment: Deployment, jobId: number | null): Draft {
  const { plan } = deployment;
  const appliances = plan.fleet?.appliances ?? [];
  const byHost = <T,>(value: (a: (typeof appliances)[number]) => T | undefined | null) =>
    Object.fromEntries(appliances.flatMap((a) => {
      const v = value(a);
      return v === undefined || v === null || v === '' ? [] : [[a.host, v]];
    })) as Record<string, T>;
  const pool = plan.pool;
  const horizon = plan.horizon;
  return {
    ...EMPTY,
    vcenterId: deployment.vcenter_id,
    datacenter: plan.datacenter,
    cluster: plan.cluster,
    hosts: appliances.map((a) => a.host),
    backend: {
      ...EMPTY.backend,
      ovaPath: plan.fleet?.ova_path ?? '',
      size: plan.fleet?.size ?? EMPTY.backend.size,
      network: plan.fleet?.network ?? '',
      bootDatastore: plan.fleet?.datastore ?? '',
      luns: byHost((a) => (a.disks ?? []).map(lunChoice)),
      addresses: byHost((a) => a.properties?.ipv4_address),
      // the storage NIC's properties are fields of their own (storagePrefix, storageMtu, storageAddresses)
      properties: { ...EMPTY.backend.properties, ...withoutStorage(plan.fleet?.properties) },
      adminPassword: '',
      apiEndpoints: byHost((a) => a.api_endpoint),
      storageNetwork: plan.fleet?.storage_network ?? '',
      storageAddresses: byHost((a) => a.properties?.storage_address),
      storagePrefix: plan.fleet?.properties?.storage_prefix ?? EMPTY.backend.storagePrefix,
      storageMtu: plan.fleet?.properties?.storage_mtu ?? EMPTY.backend.storageMtu,
      ...(plan.nfs?.clients ? { nfsClients: plan.nfs.clients.join('\n') } : {}),
    },
    storage: {
      persistence: pool?.persistence ?? EMPTY.storage.persistence,
      clone: pool?.clone ?? EMPTY.storage.clone,
      nfsVersion: plan.nfs?.version === '4.1' ? '4.1' : '3',
      datastoreName: plan.nfs?.name ?? pool?.datastore ?? EMPTY.storage.datastoreName,
      path: plan.nfs?.path ?? EMPTY.storage.path,
    },
    desktops: {
      ...EMPTY.desktops,
      name: plan.name,
      ...(pool
        ? {
            count: pool.count,
            naming: pool.naming,
            firstNumber: pool.first_number ?? 1,
            folder: pool.folder,
            goldenVm: pool.golden_vm,
            snapshot: pool.snapshot,
            vcpus: pool.vcpus ?? EMPTY.desktops.vcpus,
            memoryMb: pool.memory_mb ?? EMPTY.desktops.memoryMb,
            customizationSpec: pool.customization_spec ?? '',
          }
        : {}),
      horizon: horizon
        ? { endpoint: horizon.endpoint, username: horizon.username, domain: horizon.domain, password: '', vcenter: horizon.vcenter }
        : null,
    },
    deploymentId: deployment.id,
    jobId,
    firstAppliance: Number(APPLIANCE.exec(appliances[0]?.name ?? '')?.[1] ?? 1),
    kept: plan,
    reached: STEPS.findIndex((s) => s.id === 'review'),
  };
}

/** The names a new deployment beside the stored ones starts with: the appliances numbered on after theirs,
 * a datastore name none of them uses (a VM's or a datastore's name is one deployment's alone). */
export function freeNames(taken: readonly Deployment[]): { firstAppliance: number; datastoreName: string } {
  const numbers = taken.flatMap((d) => (d.plan.fleet?.appliances ?? []).map((a) => Number(APPLIANCE.exec(a.name)?.[1] ?? 0)));
  const datastores = new Set(taken.flatMap((d) => [d.plan.nfs?.name, d.plan.pool?.datastore]).filter(Boolean));
  let datastoreName = EMPTY.storage.datastoreName;
  for (let n = 2; datastores.has(datastoreName); n += 1) datastoreName = `${EMPTY.storage.datastoreName}-${n}`;
  return { firstAppliance: Math.max(0, ...numbers) + 1, datastoreName };
}

/** A draft for another deployment beside the ones stored: the same vCenter and cluster, free names. */
export function freshDraft(from: Draft, taken: readonly Deployment[]): Draft {
  const { firstAppliance, datastoreName } = freeNames(taken);
  return {
    ...EMPTY,
    vcenterId: from.vcenterId,
    datacenter: from.datacenter,
    cluster: from.cluster,
    firstAppliance,
    storage: { ...EMPTY.storage, datastoreName },
    reached: from.vcenterId === null ? 0 : 1,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function merged(kept: unknown, asked: unknown): unknown {
  if (!isObject(kept) || !isObject(asked)) return asked === undefined ? kept : asked;
  const out: Record<string, unknown> = { ...kept };
  for (const [key, value] of Object.entries(asked)) out[key] = merged(kept[key], value);
  return out;
}

/** What the wizard fills in with a default of its own rather than asking: an edit keeps the stored value. */
const NOT_ASKED = { pool: ['concurrency', 'power_on', 'delta_gb', 'memory_overcommit'], fleet: ['health_timeout_s'] } as const;

/** The wizard's plan over the stored one it was brought back from: only what the wizard asks for changes. */
export function overKept(plan: DeploymentPlan, kept: DeploymentPlan | null | undefined): DeploymentPlan {
  if (!kept) return plan;
  const out = merged(kept, plan) as DeploymentPlan;
  // An appliance stays the one it was on its host (its name, pinned certificate, properties not asked).
  const before = new Map((kept.fleet?.appliances ?? []).map((a) => [a.host, a]));
  if (out.fleet && plan.fleet) {
    out.fleet.appliances = plan.fleet.appliances.map((a) => {
      const was = before.get(a.host);
      if (!was) return a;
      // Its hostname as it was (the wizard's is derived from a name it may not have had).
      const properties: Record<string, string> = { ...was.properties, ...a.properties };
      if (was.properties?.hostname) properties.hostname = was.properties.hostname;
      else delete properties.hostname;
      return { ...(merged(was, a) as typeof a), name: was.name, properties };
    });
  }
  // Without a storage port group no storage_* property may stay from the stored plan: the api refuses them.
  if (out.fleet && plan.fleet && !plan.fleet.storage_network) {
    out.fleet.properties = withoutStorage(out.fleet.properties);
    out.fleet.appliances = out.fleet.appliances.map((a) => ({ ...a, properties: withoutStorage(a.properties) }));
  }
  for (const [part, keys] of Object.entries(NOT_ASKED) as ['pool' | 'fleet', readonly string[]][]) {
    const from = kept[part] as Record<string, unknown> | null | undefined;
    const to = out[part] as Record<string, unknown> | null | undefined;
    if (from && to) for (const key of keys) if (key in from) to[key] = from[key];
  }
  return out;
}
