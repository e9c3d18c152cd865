import { stateLevel } from './poolModel';

/** A ZFS state (ONLINE, DEGRADED, FAULTED ...) as a coloured dot and a word. */
export function StateLabel({ state }: { state: string }) {
  return (
    <span className={`state state-${stateLevel(state)}`} data-state={state}>
      <span className="state-dot" aria-hidden="true" />
      {state.charAt(0) + state.slice(1).toLowerCase()}
    </span>
  );
}
