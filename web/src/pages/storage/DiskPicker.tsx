import type { Disk } from '../../api/storage';
import { formatBytes } from '../../format';
import type { Role } from './poolModel';

const ROLE_OPTIONS: { value: Role | ''; label: string }[] = [
  { value: '', label: 'Not used' },
  { value: 'data', label: 'Data LUN' },
  { value: 'log', label: 'SLOG (write log)' },
  { value: 'cache', label: 'L2ARC (read cache)' },
];

interface Props {
  disks: Disk[];
  roles: Record<string, Role | ''>;
  error?: string;
  onChange: (path: string, role: Role | '') => void;
}

/** The free disks, each with what the new pool should use it for. */
export function DiskPicker({ disks, roles, error, onChange }: Props) {
  return (
    <fieldset className="disk-picker" aria-describedby={error ? 'disk-picker-error' : undefined}>
      <legend>Disks</legend>
      <p className="muted small">
        Data LUNs hold the desktops; an SSD as SLOG makes ESXi's synchronous writes fast (two make a mirror); an SSD as
        L2ARC extends the read cache.
      </p>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
          <thead>
            <tr>
              <th>Disk</th>
              <th className="num">Size</th>
              <th>Kind</th>
              <th>Use as</th>
            </tr>
          </thead>
          <tbody>
            {disks.map((disk) => (
              <tr key={disk.path} data-testid="free-disk" data-path={disk.path}>
                <th scope="row">
                  <code className="device-path">{disk.path}</code>
                </th>
                <td className="num nowrap">{formatBytes(disk.size_bytes)}</td>
                <td>{disk.rotational ? 'Rotational' : 'SSD'}</td>
                <td>
                  <select
                    className="role-select"
                    aria-label={`Use of ${disk.path}`}
                    value={roles[disk.path] ?? ''}
                    onChange={(event) => onChange(disk.path, event.target.value as Role | '')}
                  >
                    {ROLE_OPTIONS.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && (
        <p id="disk-picker-error" className="text-danger field-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
