import type { PlanOut } from '../../api/deployments';
import { describeAction } from './poolModel';

const SHOWN = 40;

/** The plan's diff against vCenter: what apply will do, object by object (the first few dozen). */
export function PlanDiff({ diff }: { diff: PlanOut }) {
  if (diff.actions.length === 0) {
    return (
      <p className="status status-ok" data-testid="plan-diff" data-empty="true">
        Nothing to change: vCenter matches the plan ({diff.unchanged} objects in place).
      </p>
    );
  }
  const counts = Object.entries(diff.counts).map(([what, n]) => `${n} × ${what}`);
  return (
    <div data-testid="plan-diff">
      <p>
        <strong>Apply will make {diff.actions.length} {diff.actions.length === 1 ? 'change' : 'changes'}</strong>{' '}
        <span className="muted">({counts.join(', ')}; {diff.unchanged} objects stay as they are)</span>
      </p>
      <ul className="doomed-list">
        {diff.actions.slice(0, SHOWN).map((a) => (
          <li key={`${a.op}-${a.kind}-${a.name}-${a.host ?? ''}`} data-op={a.op} data-kind={a.kind} data-name={a.name}>
            {describeAction(a)} <code>{a.name}</code>
            {a.host && <span className="muted"> on {a.host}</span>}
            {a.detail && <span className="muted"> — {a.detail}</span>}
          </li>
        ))}
      </ul>
      {diff.actions.length > SHOWN && <p className="muted small">and {diff.actions.length - SHOWN} more</p>}
    </div>
  );
}
