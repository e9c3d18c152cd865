import type { Host } from '../../api/types';
import { humanize } from '../../format';

/** Connection, power and maintenance state as one status with a colored dot. */
export function HostState({ host }: { host: Host }) {
  let level: 'ok' | 'warning' | 'error' | 'off' = 'ok';
  let text = 'Connected';
  if (host.connection_state !== 'connected') {
    level = 'error';
    text = humanize(host.connection_state);
  } else if (host.power_state !== 'poweredOn') {
    level = 'off';
    text = humanize(host.power_state);
  } else if (host.in_maintenance) {
    level = 'warning';
    text = 'Maintenance mode';
  }
  return (
    <span className={`state state-${level}`}>
      <span className="state-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
