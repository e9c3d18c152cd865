import { CdsButton } from '@cds/react/button';
import type { Disk, ZfsPoolHealth } from '../../api/storage';
import { formatBytes } from '../../format';
import { poolOfDisk } from './poolModel';
import { StorageLink } from '../../components/StorageLink';

const ROLE_NAMES: Record<string, string> = { data: 'data', log: 'SLOG', cache: 'L2ARC', spare: 'spare' };

function InUse({ disk, pools }: { disk: Disk; pools: ZfsPoolHealth[] }) {
  const user = poolOfDisk(disk, pools);
  if (user) {
    return (
      <span className="state state-warning">
        <span className="state-dot" aria-hidden="true" />
        <span>
          Pool <StorageLink to="/storage/pools">{user.pool}</StorageLink> ({ROLE_NAMES[user.role] ?? user.role})
        </span>
      </span>
    );
  }
  if (disk.system) {
    return (
      <span className="state state-off">
        <span className="state-dot" aria-hidden="true" />
        System disk{disk.in_use ? ` (${disk.in_use})` : ''}
      </span>
    );
  }
  if (disk.in_use) {
    return (
      <span className="state state-warning">
        <span className="state-dot" aria-hidden="true" />
        {disk.in_use.charAt(0).toUpperCase() + disk.in_use.slice(1)}
      </span>
    );
  }
  return (
    <span className="state state-ok">
      <span className="state-dot" aria-hidden="true" />
      Free
    </span>
  );
}

/** A disk holding something no imported pool uses (an old label, a foreign pool, a file system): wipeable. */
export function wipeable(disk: Disk, pools: ZfsPoolHealth[]): boolean {
  return !disk.system && !disk.mounted && Boolean(disk.in_use) && poolOfDisk(disk, pools) === null;
}

interface Props {
  disk: Disk;
  pools: ZfsPoolHealth[];
  /** Offered only when the pools are known (a disk of an imported pool is never wiped). */
  onWipe?: (disk: Disk) => void;
}

export function DiskRow({ disk, pools, onWipe }: Props) {
  return (
    <tr data-testid="disk-row" data-path={disk.path}>
      <th scope="row">
        <code className="device-path">{disk.path}</code>
        <div className="muted small">
          {disk.kernel_path}
          {disk.model ? ` · ${disk.model}` : ''}
        </div>
      </th>
      <td className="num nowrap">{formatBytes(disk.size_bytes)}</td>
      <td className="nowrap">
        {disk.rotational ? 'Rotational' : 'SSD'}
        {disk.trim && <span className="pill">TRIM</span>}
      </td>
      <td>
        {disk.serial || disk.wwn ? (
          <>
            {disk.serial && <div>{disk.serial}</div>}
            {disk.wwn && <code className="muted">{disk.wwn}</code>}
          </>
        ) : (
          <span className="muted">none reported</span>
        )}
      </td>
      <td className="num nowrap">{disk.physical_sector} B</td>
      <td>
        <InUse disk={disk} pools={pools} />
      </td>
      <td className="nowrap">
        {onWipe && wipeable(disk, pools) && (
          <CdsButton action="outline" status="danger" size="sm" onClick={() => onWipe(disk)}>
            Wipe<span className="sr-only"> {disk.path}</span>
          </CdsButton>
        )}
      </td>
    </tr>
  );
}
