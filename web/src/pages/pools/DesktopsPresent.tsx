import { messageOf } from '../../api/errors';
import type { DeploymentInventory } from './fleetApi';

type Answer = { data?: DeploymentInventory; isError: boolean; error: unknown };

/** Desktops present in vCenter against the plan: '18 of 20 (2 missing)', stale and powered-off ones too. */
export function DesktopsPresent({ inventory }: { inventory: Answer }) {
  if (inventory.isError) return <span className="muted">could not ask vCenter: {messageOf(inventory.error)}</span>;
  const d = inventory.data;
  if (!d) return <span className="muted">asking vCenter…</span>;
  const missing = d.planned - d.present;
  const stale = d.present - d.current;
  const off = d.present - d.powered_on;
  const extra = d.desktops.length - d.present;
  const notes = [
    missing > 0 ? `${missing} missing` : null,
    stale > 0 ? `${stale} on another snapshot` : null,
    off > 0 ? `${off} powered off` : null,
    extra > 0 ? `${extra} no longer planned` : null,
  ].filter(Boolean);
  return (
    <span className={notes.length ? 'text-danger' : undefined} data-testid="desktops-present" data-present={d.present} data-planned={d.planned}>
      {d.present} of {d.planned}
      {notes.length > 0 && ` (${notes.join(', ')})`}
    </span>
  );
}
