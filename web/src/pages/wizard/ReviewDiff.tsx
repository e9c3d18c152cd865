import type { PlanOut } from '../../api/deployments';

type Action = PlanOut['actions'][number];

const OPS: Record<Action['op'], string> = { create: 'Create', delete: 'Remove', replace: 'Recompose', power_on: 'Power on', move: 'vMotion back', orphan: 'Keep (destroy removes)' };
const KINDS: Record<Action['kind'], [string, string]> = {
  appliance: ['appliance', 'appliances'],
  disk: ['disk (LUN or SSD)', 'disks (LUNs and SSDs)'],
  storage: ['ZFS pool, dataset and NFS export', 'ZFS pools, datasets and NFS exports'],
  nfs_mount: ['NFS datastore mount', 'NFS datastore mounts'],
  folder: ['VM folder', 'VM folders'],
  resource_pool: ['resource pool', 'resource pools'],
  desktop: ['desktop', 'desktops'],
  horizon_pool: ['Horizon pool', 'Horizon pools'],
};

/** '100 desktops to create' for an 'op kind' key of PlanOut.counts. */
export function countLabel(key: string, count: number): string {
  const [op, kind] = key.split(' ') as [Action['op'], Action['kind']];
  const words = KINDS[kind] ?? [kind, kind];
  return `${OPS[op] ?? op} ${count} ${count === 1 ? words[0] : words[1]}`;
}

function groups(actions: readonly Action[], cluster: string): [string, Action[]][] {
  const byHost = new Map<string, Action[]>();
  for (const a of actions) {
    const key = a.host ?? `Cluster ${cluster}`;
    byHost.set(key, [...(byHost.get(key) ?? []), a]);
  }
  return [...byHost.entries()].sort(([a], [b]) => (a.startsWith('Cluster ') ? 1 : b.startsWith('Cluster ') ? -1 : a.localeCompare(b)));
}

function counts(actions: readonly Action[]): [string, number][] {
  const out = new Map<string, number>();
  for (const a of actions) out.set(`${a.op} ${a.kind}`, (out.get(`${a.op} ${a.kind}`) ?? 0) + 1);
  return [...out.entries()];
}

/** The plan's diff against vCenter: what apply will do, per host (and cluster-wide), with counts. */
export function ReviewDiff({ diff, cluster }: { diff: PlanOut; cluster: string }) {
  const total = diff.actions.length;
  return (
    <div className="review-diff" data-testid="review-diff">
      <p>
        <strong>{total}</strong> change{total === 1 ? '' : 's'} to make; <strong>{diff.unchanged}</strong> planned object
        {diff.unchanged === 1 ? '' : 's'} in place already.
      </p>
      <ul className="review-counts" aria-label="Changes by kind">
        {Object.entries(diff.counts).map(([key, n]) => (
          <li key={key} data-count={key}>
            {countLabel(key, n)}
          </li>
        ))}
      </ul>
      {groups(diff.actions, cluster).map(([where, actions]) => (
        <section key={where} className="review-host" aria-label={where}>
          <h3 cds-text="subsection">{where}</h3>
          <p className="muted">{counts(actions).map(([key, n]) => countLabel(key, n)).join(' · ')}</p>
          <details>
            <summary>
              Every object ({actions.length})
            </summary>
            <div className="table-wrap">
            <table cds-table="border:outside border:row" className="data-table">
              <thead>
                <tr>
                  <th scope="col">Change</th>
                  <th scope="col">Object</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {actions.map((a, i) => (
                  <tr key={`${a.op}-${a.kind}-${a.name}-${i}`}>
                    <td className="nowrap">{countLabel(`${a.op} ${a.kind}`, 1).replace(/ 1 /, ' ')}</td>
                    <td className="mono">{a.name}</td>
                    <td>{a.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            </div>
          </details>
        </section>
      ))}
    </div>
  );
}
