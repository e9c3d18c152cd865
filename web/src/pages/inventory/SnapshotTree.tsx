import { CdsIcon } from '@cds/react/icon';
import type { Snapshot } from '../../api/types';
import { formatDateTime } from '../../format';

/** A VM's snapshot tree, oldest first: the points linked clones can be taken from. */
export function SnapshotTree({ snapshots }: { snapshots: readonly Snapshot[] }) {
  if (snapshots.length === 0) return <span className="muted">No snapshots</span>;
  return (
    <ul className="snapshot-tree">
      {snapshots.map((snap) => (
        <li key={snap.moid}>
          <span className="snapshot" title={snap.description || undefined}>
            <CdsIcon shape="history" size="sm" />
            <span className="snapshot-name">{snap.name}</span>
            <span className="muted">{formatDateTime(snap.created)}</span>
          </span>
          {snap.children && snap.children.length > 0 && <SnapshotTree snapshots={snap.children} />}
        </li>
      ))}
    </ul>
  );
}
