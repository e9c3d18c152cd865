import { messageOf } from '../../api/errors';
import { Loading } from '../../components/Loading';
import { useDeploymentInventory } from './fleetApi';
import type { Deployment } from '../../api/deployments';
import { describeAction, plannedObjects } from './poolModel';

const SHOWN = 30;

/**
 * What a destroy removes: vCenter's own answer (every object owned by the deployment, in destroy's order);
 * when vCenter cannot be asked, the objects the plan names.
 */
export function DoomedObjects({ deployment }: { deployment: Deployment }) {
  const inventory = useDeploymentInventory(deployment.id);
  if (inventory.isPending) return <Loading label="Asking vCenter what this deployment owns" />;
  const fromVCenter = inventory.isSuccess;
  const doomed = fromVCenter ? inventory.data.teardown : plannedObjects(deployment.plan);
  return (
    <div>
      {inventory.isError && (
        <p className="text-danger">
          vCenter could not be asked ({messageOf(inventory.error)}); these are the objects the plan names. Destroy removes only
          what carries this deployment's mark.
        </p>
      )}
      {fromVCenter && doomed.length === 0 && <p className="muted">vCenter holds nothing of this deployment.</p>}
      {doomed.length > 0 && (
        <>
          <p className="muted">
            {fromVCenter ? `Removed from vCenter (${doomed.length} objects):` : `Planned objects (${doomed.length}):`}
          </p>
          <ul className="doomed-list" data-testid="doomed-objects">
            {doomed.slice(0, SHOWN).map((a) => (
              <li key={`${a.kind}-${a.name}-${a.host ?? ''}`} data-kind={a.kind} data-name={a.name}>
                {describeAction(a)} <code>{a.name}</code>
                {a.host && <span className="muted"> on {a.host}</span>}
              </li>
            ))}
          </ul>
          {doomed.length > SHOWN && <p className="muted small">and {doomed.length - SHOWN} more</p>}
        </>
      )}
    </div>
  );
}
