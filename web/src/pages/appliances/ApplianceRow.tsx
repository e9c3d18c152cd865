import type { ApplianceStatus } from './appliancesApi';
import { HealthLabel } from './HealthLabel';

/** One appliance: where it runs, how to reach it, how it is, and what needs a look. */
export function ApplianceRow({ appliance: a }: { appliance: ApplianceStatus }) {
  return (
    <tr data-testid="appliance-row" data-name={a.name}>
      <th scope="row">{a.name}</th>
      <td>{a.host}</td>
      <td className="mono">{a.address ?? <span className="muted">none</span>}</td>
      <td>
        <HealthLabel appliance={a} />
      </td>
      <td>{a.version ?? <span className="muted">unknown</span>}</td>
      <td>
        {a.pools === null || a.pools === undefined ? (
          <span className="muted">not read</span>
        ) : a.pools.length === 0 ? (
          <span className="muted">no pool</span>
        ) : (
          a.pools.map((p) => (
            <div key={p.name} className={p.state === 'ONLINE' ? undefined : 'text-danger'}>
              {p.name}: {p.state.toLowerCase()}
            </div>
          ))
        )}
      </td>
      <td>
        {a.alerts.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="doomed-list" data-testid="appliance-alerts">
            {a.alerts.map((alert) => (
              <li key={alert}>{alert}</li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}
