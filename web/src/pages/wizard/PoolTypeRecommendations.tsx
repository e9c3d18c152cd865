import type { SizingInput } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PlanFigures } from '../storage/PlanFigures';
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
      <PlanFigures plan={p} />
    </section>
  );
}
