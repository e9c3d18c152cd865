import type { Draft } from './draft';
import { desktopName } from './desktopsModel';

/** The wizard's answers in a few lines, above the diff. */
export function ReviewSummary({ draft }: { draft: Draft }) {
  const { storage, desktops: d } = draft;
  const last = desktopName(d.naming, d.firstNumber + d.count - 1);
  const rows: [string, string][] = [
    ['Deployment', d.name],
    ['Placement', `${draft.datacenter} / ${draft.cluster}, ${draft.hosts.length} host${draft.hosts.length === 1 ? '' : 's'}`],
    ['Appliances', draft.hosts.length ? `${draft.hosts.length} × ${draft.backend.size}` : 'none'],
    ['Datastore', draft.hosts.length ? `${storage.datastoreName}: NFS ${storage.nfsVersion}, ${storage.path}` : `${storage.datastoreName} (in place)`],
    ['Pool', `${storage.persistence}, ${storage.clone} clones`],
    ['Desktops', `${d.count} (${desktopName(d.naming, d.firstNumber)} … ${last}), ${d.vcpus} vCPU, ${d.memoryMb} MiB`],
    ['Golden image', `${d.goldenVm} @ ${d.snapshot}`],
    ['Horizon', d.horizon ? `${d.horizon.endpoint} (${d.horizon.domain}\\${d.horizon.username})` : 'not used'],
  ];
  return (
    <dl className="review-summary">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
