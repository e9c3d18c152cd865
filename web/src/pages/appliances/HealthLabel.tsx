import type { ApplianceStatus } from './appliancesApi';

/** Healthy, needs a look, or unreachable: a coloured dot and words. */
export function HealthLabel({ appliance }: { appliance: ApplianceStatus }) {
  const [level, words] = !appliance.reachable
    ? ['error', 'Unreachable']
    : appliance.healthy
      ? ['ok', 'Healthy']
      : ['warning', 'Needs a look'];
  return (
    <span className={`state state-${level}`} data-testid="appliance-health" data-health={level}>
      <span className="state-dot" aria-hidden="true" />
      {words}
    </span>
  );
}
