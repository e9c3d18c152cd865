import { CdsButton } from '@cds/react/button';
import type { ZfsPoolHealth, Vdev } from '../../api/storage';
import { errorsOf, leaves } from './poolModel';
import { StateLabel } from './StateLabel';

const ROLES: { role: string; title: string }[] = [
  { role: 'data', title: 'Data' },
  { role: 'log', title: 'SLOG (log)' },
  { role: 'cache', title: 'L2ARC (cache)' },
  { role: 'spare', title: 'Spares' },
];

function Count({ value }: { value: number }) {
  return <td className={value ? 'num text-danger' : 'num'}>{value}</td>;
}

interface RowProps {
  vdev: Vdev;
  depth: number;
  /** Set for the data LUNs that can be replaced (a leaf with a device path). */
  onReplace?: () => void;
}

function Row({ vdev, depth, onReplace }: RowProps) {
  return (
    <tr data-testid="vdev-row" data-vdev={vdev.name} className={errorsOf(vdev) ? 'row-error' : undefined}>
      <th scope="row" style={{ paddingLeft: `${0.75 + depth * 1.25}rem` }}>
        <span className="vdev-name">{vdev.name}</span>
        {vdev.vdev_type !== 'disk' && <span className="pill">{vdev.vdev_type}</span>}
      </th>
      <td>
        <StateLabel state={vdev.state} />
      </td>
      <Count value={vdev.read_errors} />
      <Count value={vdev.write_errors} />
      <Count value={vdev.checksum_errors} />
      <Count value={vdev.slow_ios ?? 0} />
      <td className="col-actions">
        {onReplace && (
          <CdsButton size="sm" action="outline" onClick={onReplace} aria-label={`Replace ${vdev.name}`}>
            Replace
          </CdsButton>
        )}
      </td>
    </tr>
  );
}

/** Every vdev of a pool grouped by role, groups (mirror-0, raidz1-0) above their disks. */
export function VdevTable({ pool, onReplace }: { pool: ZfsPoolHealth; onReplace: (vdev: Vdev) => void }) {
  const depthOf = (v: Vdev) => (v.parent ? 1 : 0);
  // Replacing is for data LUNs: a SLOG or L2ARC device is simply removed and added again.
  const replaceable = new Set(leaves(pool, 'data').filter((v) => v.path));
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table vdev-table" aria-label={`Devices of ${pool.name}`}>
        <thead>
          <tr>
            <th>Device</th>
            <th>State</th>
            <th className="num">Read errors</th>
            <th className="num">Write errors</th>
            <th className="num">Checksum errors</th>
            <th className="num">Slow I/Os</th>
            <th className="col-actions">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        {ROLES.map(({ role, title }) => {
          const vdevs = pool.vdevs.filter((v) => v.role === role);
          if (!vdevs.length) return null;
          return (
            <tbody key={role}>
              <tr className="group-row">
                <th scope="rowgroup" colSpan={7}>
                  {title}
                </th>
              </tr>
              {vdevs.map((v) => (
                <Row
                  key={`${v.parent ?? ''}/${v.name}`}
                  vdev={v}
                  depth={depthOf(v)}
                  onReplace={replaceable.has(v) ? () => onReplace(v) : undefined}
                />
              ))}
            </tbody>
          );
        })}
      </table>
    </div>
  );
}
