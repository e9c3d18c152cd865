import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import type { Dataset } from '../../api/storage';
import { formatBytes } from '../../format';
import { sizeText, zfsSize } from './datasetModel';

const SHOWN_PROPERTIES = ['recordsize', 'compression', 'sync', 'logbias', 'primarycache', 'secondarycache', 'quota', 'reservation'] as const;

function property(d: Dataset, name: string): string | null {
  const value = d.properties[name];
  if (value === null || value === undefined) return null;
  if (name === 'recordsize' && typeof value === 'number') return zfsSize(value);
  // Space limits are shown only when set: "quota=none" on every row would be noise.
  if (name === 'quota' || name === 'reservation') return sizeText(value) === 'none' ? null : sizeText(value);
  return String(value);
}

/** Child datasets of a pool (the pool's root dataset is its summary line). */
interface Props {
  pool: string;
  datasets: Dataset[];
  onCreate: () => void;
  onEdit: (dataset: Dataset) => void;
}

export function DatasetTable({ pool, datasets, onCreate, onEdit }: Props) {
  const root = datasets.find((d) => d.name === pool);
  const children = datasets.filter((d) => d.name !== pool);
  return (
    <section className="card storage-section" aria-labelledby="datasets-title">
      <h2 id="datasets-title" cds-text="section">
        Datasets of {pool} <span className="count">{children.length}</span>
      </h2>
      {root && (
        <p className="muted" data-testid="pool-space">
          {formatBytes(root.used)} used
          {root.available !== null && root.available !== undefined && <>, {formatBytes(root.available)} available</>} ·
          compression {root.compressratio.toFixed(2)}x
        </p>
      )}
      {children.length === 0 ? (
        <div className="empty-inline">
          <p>No dataset on {pool} yet — create one per desktop pool, tuned by its pool type.</p>
          <CdsButton action="outline" size="sm" onClick={onCreate}>
            Create dataset
          </CdsButton>
        </div>
      ) : (
        <div className="table-wrap">
          <table cds-table="border:outside border:row" className="data-table" data-testid="datasets-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th className="num">Used</th>
                <th className="num">Logical</th>
                <th className="num">Ratio</th>
                <th>Mount point / origin</th>
                <th>Tuning</th>
                <th className="col-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {children.map((d) => (
                <tr key={d.name} data-testid="dataset-row" data-dataset={d.name}>
                  <th scope="row">
                    <code className="device-path">{d.name}</code>
                  </th>
                  <td>{d.type === 'VOLUME' ? 'zvol' : d.type === 'FILESYSTEM' ? 'file system' : d.type.toLowerCase()}</td>
                  <td className="num nowrap">{formatBytes(d.used)}</td>
                  <td className="num nowrap">{formatBytes(d.logicalused)}</td>
                  <td className="num nowrap">{d.compressratio.toFixed(2)}x</td>
                  <td>
                    {d.mountpoint && d.mountpoint !== '-' ? <code>{d.mountpoint}</code> : <span className="muted">—</span>}
                    {d.origin && d.origin !== '-' && <div className="muted small">clone of {d.origin}</div>}
                  </td>
                  <td>
                    <div className="props">
                      {SHOWN_PROPERTIES.map((name) => {
                        const value = property(d, name);
                        if (value === null) return null;
                        return (
                          <span key={name} className={d.local.includes(name) ? 'prop prop-local' : 'prop'} title={d.local.includes(name) ? 'set on this dataset' : 'inherited or default'}>
                            {name}={value}
                          </span>
                        );
                      })}
                    </div>
                  </td>
                  <td className="col-actions">
                    <CdsButton size="sm" action="outline" onClick={() => onEdit(d)} aria-label={`Edit ${d.name}`}>
                      <CdsIcon shape="pencil" /> Edit
                    </CdsButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
