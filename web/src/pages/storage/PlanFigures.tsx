import type { Plan } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { formatBytes } from '../../format';
import { poolTypeLabel } from './poolTypes';
import { formatValue } from './tuningModel';

/** The calculator's answer: the expected offload first, warnings, then each value with its one-line why. */
export function PlanFigures({ plan }: { plan: Plan }) {
  return (
    <>
      <div className="plan-headline">
        <div>
          <div className="metric-big" data-testid="expected-offload">
            {plan.expected_read_offload}x
          </div>
          <div className="muted small">expected read offload: client reads per SAN read, once the cache is warm</div>
        </div>
        <div>
          <div className="metric-big">{formatBytes(plan.hot_set_bytes)}</div>
          <div className="muted small">hot set (compressed) for {poolTypeLabel(plan.pool_type).toLowerCase()}</div>
        </div>
      </div>
      {plan.warnings.map((w) => (
        <FormAlert key={w} status="warning">
          {w}
        </FormAlert>
      ))}
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table" data-testid="recommendations">
          <caption className="sr-only">Recommendations and why</caption>
          <thead>
            <tr>
              <th>Setting</th>
              <th className="num">Value</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {plan.recommendations.map((r) => (
              <tr key={r.name} data-testid="recommendation" data-name={r.name}>
                <th scope="row">
                  <code>{r.name}</code>
                </th>
                <td className="num nowrap">{formatValue(r.name, r.value)}</td>
                <td>{r.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
