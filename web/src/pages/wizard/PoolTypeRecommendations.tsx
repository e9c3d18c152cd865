import { type SizingInput, useProfiles } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { PoolTypeProfile } from './PoolTypeProfile';
import { usePoolTypeRecommendation } from './poolTypeQueries';
import { keyFigures, type PoolLayout } from './tuningFigures';

/**
 * What one appliance of this deployment will be, in the figures an architect decides on (layout, ARC,
 * L2ARC, SLOG, compression, record size, expected offload), with the calculator's warnings; every other
 * tuning value and its why behind a disclosure.
 */
export function PoolTypeRecommendations({ input, layout }: { input: SizingInput | null; layout: PoolLayout }) {
  const plan = usePoolTypeRecommendation(input);
  const profiles = useProfiles();
  if (!input) return <p className="muted">Enter the number of desktops and the golden image’s size to see the sizing.</p>;
  if (plan.isPending) return <Loading label="Calculating" />;
  if (plan.isError) return <ErrorState title="Could not calculate the sizing" error={plan.error} onRetry={() => void plan.refetch()} />;
  const p = plan.data;
  const profile = profiles.data?.find((x) => x.name === p.pool_type);
  return (
    <section className="plan" aria-labelledby="pooltype-plan-title" data-testid="plan" aria-live="polite">
      <h3 id="pooltype-plan-title" cds-text="subsection">
        Each appliance ({input.desktops} desktops, {input.ram_gib} GiB RAM)
      </h3>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table key-figures" data-testid="key-figures">
          <caption className="sr-only">The sizing of each appliance, and why</caption>
          <thead>
            <tr>
              <th scope="col">Decision</th>
              <th scope="col">Value</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {keyFigures(p, input, layout, profile).map((f) => (
              <tr key={f.key} data-testid="key-figure" data-name={f.key}>
                <th scope="row" className="nowrap">
                  {f.label}
                </th>
                <td className="nowrap" data-testid={f.key === 'offload' ? 'expected-offload' : undefined}>
                  {f.value}
                </td>
                <td>{f.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.warnings.map((w) => (
        <FormAlert key={w} status="warning">
          {w.charAt(0).toUpperCase() + w.slice(1)}.
        </FormAlert>
      ))}
      <PoolTypeProfile plan={p} profile={profile} />
    </section>
  );
}
