import { useId } from 'react';
import type { Disk } from '../../api/storage';
import { formatBytes } from '../../format';

interface Props {
  legend: string;
  disks: Disk[];
  selected: string[];
  /** Checkboxes (grow: several LUNs) or radio buttons (replace: exactly one). */
  multiple: boolean;
  error?: string;
  onChange: (selected: string[]) => void;
}

/** Free disks to choose from, each labelled by its by-id path so a screen reader names what is picked. */
export function FreeDiskChoice({ legend, disks, selected, multiple, error, onChange }: Props) {
  const id = useId();
  const pick = (path: string, on: boolean) => {
    if (!multiple) onChange([path]);
    else onChange(on ? [...selected, path] : selected.filter((p) => p !== path));
  };
  return (
    <fieldset className="disk-picker" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
          <thead>
            <tr>
              <th>
                <span className="sr-only">Chosen</span>
              </th>
              <th>Disk</th>
              <th className="num">Size</th>
              <th>Kind</th>
            </tr>
          </thead>
          <tbody>
            {disks.map((disk) => (
              <tr key={disk.path} data-testid="free-disk" data-path={disk.path}>
                <td>
                  <input
                    id={`${id}-${disk.path}`}
                    type={multiple ? 'checkbox' : 'radio'}
                    name={`${id}-disk`}
                    checked={selected.includes(disk.path)}
                    onChange={(event) => pick(disk.path, event.target.checked)}
                  />
                </td>
                <th scope="row">
                  <label htmlFor={`${id}-${disk.path}`}>
                    <code className="device-path">{disk.path}</code>
                  </label>
                </th>
                <td className="num nowrap">{formatBytes(disk.size_bytes)}</td>
                <td>{disk.rotational ? 'Rotational' : 'SSD'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && (
        <p id={`${id}-error`} className="text-danger field-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
