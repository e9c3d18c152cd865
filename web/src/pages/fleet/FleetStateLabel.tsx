import type { FleetAppliance } from '../../api/fleet';

const WORDS: Record<FleetAppliance['state'], string> = {
  ok: 'Healthy',
  unpinned: 'Not pinned',
  unreachable: 'Unreachable',
  slow: 'Too slow',
  certificate: 'Certificate changed',
  refused: 'Refused',
};

/** How the appliance answered: a coloured dot and words (why, when it could not be read, goes under the row). */
export function FleetStateLabel({ appliance: a }: { appliance: FleetAppliance }) {
  const level = a.state === 'ok' ? (a.healthy ? 'ok' : 'warning') : a.state === 'unpinned' ? 'warning' : 'error';
  const words = a.state === 'ok' && !a.healthy ? 'Needs a look' : WORDS[a.state];
  return (
    <span className={`state state-${level}`} data-testid="fleet-state" data-state={a.state}>
      <span className="state-dot" aria-hidden="true" />
      {words}
    </span>
  );
}
