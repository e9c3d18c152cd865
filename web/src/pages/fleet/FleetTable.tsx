import { Fragment } from 'react';
import { Link } from 'react-router';
import type { FleetAppliance, FleetDeployment } from '../../api/fleet';
import { appliancePath } from '../../api/scope';
import { COLUMNS, type Sort, type SortKey, sorted } from './fleetModel';
import { FleetStateLabel } from './FleetStateLabel';

interface Props {
  deployment: FleetDeployment;
  sort: Sort;
  onSort: (key: SortKey) => void;
  /** the appliance whose charts are shown, if one is */
  charted: string | null;
  onChart: (key: string) => void;
}

// the columns of a row: name, host, state, the figures, alerts and version
const WIDTH = COLUMNS.length + 5;

export const chartKey = (deployment: FleetDeployment, a: FleetAppliance) => `${deployment.id}/${a.name}`;

function SortHeader({ id, label, hint, sort, onSort, numeric }: { id: SortKey; label: string; hint?: string; sort: Sort; onSort: (key: SortKey) => void; numeric?: boolean }) {
  const active = sort.key === id;
  return (
    <th scope="col" aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'} className={numeric ? 'num' : undefined}>
      <button type="button" className="sort-button" title={hint} onClick={() => onSort(id)} data-sort={id}>
        {label}
        <span aria-hidden="true" className="sort-mark">
          {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
        </span>
      </button>
    </th>
  );
}

/** One deployment's appliances: where they run, how they answered, and their figures over the range. */
export function FleetTable({ deployment, sort, onSort, charted, onChart }: Props) {
  const id = `fleet-${deployment.id}`;
  return (
    <section className="card storage-section" aria-labelledby={`${id}-title`} data-testid="fleet-deployment" data-name={deployment.name}>
      <div className="section-head">
        <h2 id={`${id}-title`} cds-text="section">
          Deployment {deployment.name} <span className="count">{deployment.appliances.length}</span>
        </h2>
        <span className="muted small">
          vCenter {deployment.vcenter} · {deployment.datacenter} / {deployment.cluster}
          {deployment.horizon && <> · Horizon {deployment.horizon}</>}
        </span>
      </div>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table fleet-table" data-testid="fleet-figures">
          <thead>
            <tr>
              <SortHeader id="name" label="Appliance" sort={sort} onSort={onSort} />
              <SortHeader id="host" label="Host" sort={sort} onSort={onSort} />
              <SortHeader id="state" label="State" hint="Worst first when ascending" sort={sort} onSort={onSort} />
              {COLUMNS.map((c) => (
                <SortHeader key={c.key} id={c.key} label={c.label} hint={c.hint} sort={sort} onSort={onSort} numeric />
              ))}
              <SortHeader id="alerts" label="Alerts" sort={sort} onSort={onSort} />
              <SortHeader id="version" label="Version" sort={sort} onSort={onSort} />
            </tr>
          </thead>
          <tbody>
            {sorted(deployment.appliances, sort).map((a) => {
              const key = chartKey(deployment, a);
              return (
                <Fragment key={a.name}>
                  <tr data-testid="fleet-row" data-name={a.name} className={charted === key ? 'charted' : undefined}>
                    <th scope="row">
                      {a.figures ? (
                        <button type="button" className="link-button" onClick={() => onChart(key)} title={`Show ${a.name}'s charts`}>
                          {a.name}
                        </button>
                      ) : (
                        a.name
                      )}
                      {a.address && <div className="mono muted small">{a.address}</div>}
                      {a.state !== 'unpinned' && (
                        // its pools, datasets, exports ... through the manager, whatever its state now
                        <Link className="small" to={appliancePath(deployment.id, a.name)} aria-label={`Storage of ${a.name}`}>
                          Storage
                        </Link>
                      )}
                    </th>
                    <td>{a.host}</td>
                    <td>
                      <FleetStateLabel appliance={a} />
                    </td>
                    {COLUMNS.map((c) => (
                      <td key={c.key} className="num" data-column={c.key}>
                        {c.show(a)}
                      </td>
                    ))}
                    <td className="num" data-column="alerts">
                      {a.state === 'ok' ? a.alerts.length : '—'}
                    </td>
                    <td>{a.version ?? <span className="muted">unknown</span>}</td>
                  </tr>
                  {(a.reason || a.alerts.length > 0) && (
                    <tr className="fleet-detail" data-testid="fleet-detail" data-name={a.name}>
                      <td colSpan={WIDTH}>
                        {a.reason && (
                          <p className="fleet-reason" data-testid="fleet-reason">
                            {a.reason}
                          </p>
                        )}
                        {a.alerts.length > 0 && (
                          <ul className="fleet-alerts" data-testid="fleet-alerts" aria-label={`Alerts of ${a.name}`}>
                            {a.alerts.map((alert) => (
                              <li key={alert.key} className={alert.severity === 'critical' ? 'text-danger' : undefined}>
                                <strong>{alert.subject}:</strong> {alert.message}
                              </li>
                            ))}
                          </ul>
                        )}
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
