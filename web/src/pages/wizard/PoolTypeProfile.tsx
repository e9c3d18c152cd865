import type { Plan, Profile } from '../../api/storage';
import { poolTypeLabel } from '../storage/poolTypes';
import { allTuning } from './tuningFigures';

/** Every value the appliance is tuned with (module parameters, dataset properties), each once, on demand. */
export function PoolTypeProfile({ plan, profile }: { plan: Plan; profile: Profile | undefined }) {
  const rows = allTuning(plan, profile);
  return (
    <details className="tuning-details" data-testid="pooltype-profile" data-profile={plan.pool_type}>
      <summary>
        All tuning values and why <span className="muted">({rows.length}, profile {poolTypeLabel(plan.pool_type).toLowerCase()})</span>
      </summary>
      {profile && <p className="muted">{profile.description}</p>}
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table" data-testid="recommendations">
          <caption className="sr-only">Every tuning value and why</caption>
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">Value</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} data-testid="recommendation" data-name={r.zfs}>
                <th scope="row">
                  {r.label}
                  <div>
                    <code className="muted">{r.zfs}</code>
                  </div>
                </th>
                <td className="nowrap">{r.value}</td>
                <td>{r.why || <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
