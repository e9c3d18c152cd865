import type { SizingInput } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { formatBytes } from '../../format';
import { formatValue } from '../storage/tuningModel';
import { usePoolTypeRecommendation } from './poolTypeQueries';

/** The calculator's recommendations for one appliance of this deployment, each with its why, and the offload. */
export function PoolTypeRecommendations({ input }: { input: SizingInput | null }) {
  const plan = usePoolTypeRecommendation(input);
  if (!input) return <p className="muted">Enter the number of desktops and the golden image’s size to see the recommendations.</p>;
  if (plan.isPending) return <Loading label="Calculating" />;
  if (plan.isError) return <ErrorState title="Could not calculate the recommendations" error={plan.error} onRetry={() => void plan.refetch()} />;
  const p = plan.data;
  return (
    <section className="plan" aria-labelledby="pooltype-plan-title" data-testid="plan" aria-live="polite">
      <h3 id="pooltype-plan-title" cds-text="subsection">
        Recommendations per appliance ({input.desktops} desktops, {input.ram_gib} GiB RAM)
      </h3>
      <p className="muted small" data-testid="plan-ssds">
        {input.slog_ssd_gib || input.l2arc_ssd_gib
          ? `With the first appliance’s SSDs of step 3 (its export is the datastore): SLOG ${input.slog_ssd_gib} GiB, L2ARC ${input.l2arc_ssd_gib} GiB.`
          : 'Without SSDs: no SLOG or L2ARC chosen in step 3. They can be added on each appliance’s Pools page later; its Tuning page then sizes them.'}
      </p>
      <div className="plan-headline">
        <div>
          <div className="metric-big" data-testid="expected-offload">
            {p.expected_read_offload}x
          </div>
          <div className="muted small">expected read offload: client reads per SAN read, once the cache is warm</div>
        </div>
        <div>
          <div className="metric-big">{formatBytes(p.hot_set_bytes)}</div>
          <div className="muted small">hot set (compressed)</div>
        </div>
      </div>
      {p.warnings.map((w) => (
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
            {p.recommendations.map((r) => (
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
    </section>
  );
}
