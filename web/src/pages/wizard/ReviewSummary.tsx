import { storageOf } from './backendModel';
import type { Draft } from './draft';
import { desktopName } from './desktopsModel';

/** 'vsa-storage (MTU 9000): 198.51.100.11/24, 198.51.100.12/24', or that NFS stays on the management network. */
function storageNetwork(draft: Draft): string {
  const nic = storageOf(draft.backend);
  if (!nic.network) return `none: NFS on ${draft.backend.network || 'the management network'}`;
  const addresses = draft.hosts.map((h) => `${nic.addresses[h] ?? ''}/${nic.prefix}`).join(', ');
  return `${nic.network} (MTU ${nic.mtu}): ${addresses}`;
}

/** The wizard's answers in a few lines, above the diff. */
export function ReviewSummary({ draft }: { draft: Draft }) {
  const { storage, desktops: d } = draft;
  const last = desktopName(d.naming, d.firstNumber + d.count - 1);
  const rows: [string, string][] = [
    ['Deployment', d.name],
    ['Placement', `${draft.datacenter} / ${draft.cluster}, ${draft.hosts.length} host${draft.hosts.length === 1 ? '' : 's'}`],
    ['Appliances', draft.hosts.length ? `${draft.hosts.length} × ${draft.backend.size}` : 'none'],
    ...(draft.hosts.length ? [['Storage network', storageNetwork(draft)] as [string, string]] : []),
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
