import type { Deployment, DeploymentPlan } from '../../api/deployments';
import type { Job } from '../../api/jobs';
import type { Snapshot } from '../../api/types';
import { desktopName } from '../wizard/desktopsModel';
import type { PlanAction } from './fleetApi';

export type Pool = NonNullable<DeploymentPlan['pool']>;

/** 'Stateless, linked clones' and the like. */
export function poolTypeOf(pool: Pool): string {
  const persistence = pool.persistence === 'persistent' ? 'Persistent' : 'Stateless';
  return `${persistence}, ${pool.clone === 'full' ? 'full' : 'linked'} clones`;
}


/** Desktops added (grow) or removed (shrink) going from `from` to `to` desktops. */
export function resizeNames(pool: Pool, to: number): { added: string[]; removed: string[] } {
  const first = pool.first_number ?? 1;
  const from = pool.count;
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => desktopName(pool.naming, first + a + i));
  return { added: range(from, to), removed: range(to, from) };
}

/** The datastores a deployment uses: the desktops' and the NFS datastore it mounts. */
export function datastoresOf(plan: DeploymentPlan): string[] {
  return [...new Set([plan.pool?.datastore, plan.nfs?.name].filter((d): d is string => Boolean(d)))];
}

/** What the user types to confirm a delete: the pool's name, or the deployment's without a pool. */
export function confirmName(deployment: Deployment): string {
  return deployment.plan.pool?.name ?? deployment.name;
}

/** The objects a deployment's plan names, for a delete dialog when vCenter cannot be asked. */
export function plannedObjects(plan: DeploymentPlan): PlanAction[] {
  const out: PlanAction[] = [];
  const desktop = (name: string): PlanAction => ({ op: 'delete', kind: 'desktop', name, detail: '' });
  if (plan.pool) out.push(...resizeNames({ ...plan.pool, count: 0 }, plan.pool.count).added.map(desktop));
  if (plan.nfs) out.push({ op: 'delete', kind: 'nfs_mount', name: plan.nfs.name, detail: 'on every host' });
  for (const a of plan.fleet?.appliances ?? []) out.push({ op: 'delete', kind: 'appliance', name: a.name, host: a.host, detail: '' });
  if (plan.pool) out.push({ op: 'delete', kind: 'folder', name: plan.pool.folder, detail: '' });
  return out;
}

/** Every snapshot of a tree, depth first, with its path for the label ('base › v2'). */
export function flattenSnapshots(snapshots: readonly Snapshot[], parent = ''): { name: string; label: string }[] {
  return snapshots.flatMap((s) => {
    const label = parent ? `${parent} › ${s.name}` : s.name;
    return [{ name: s.name, label }, ...flattenSnapshots(s.children ?? [], label)];
  });
}

const KIND_WORDS: Record<string, string> = {
  appliance: 'appliance', disk: 'disk', storage: 'storage', nfs_mount: 'NFS mount', folder: 'folder',
  resource_pool: 'resource pool', desktop: 'desktop', horizon_pool: 'Horizon pool',
};

/** 'Create desktop', 'Delete NFS mount' ... */
export function describeAction(a: PlanAction): string {
  const op = a.op === 'power_on' ? 'Power on' : a.op.charAt(0).toUpperCase() + a.op.slice(1);
  return `${op} ${KIND_WORDS[a.kind] ?? a.kind}`;
}

/** 'succeeded' → 'ok' and so on, for the StateLabel-like dot. */
export function jobLevel(job: Job | undefined): 'ok' | 'warning' | 'error' | 'off' {
  if (!job) return 'off';
  if (job.state === 'succeeded') return 'ok';
  if (job.state === 'failed') return 'error';
  if (job.state === 'cancelled') return 'off';
  return 'warning';
}
