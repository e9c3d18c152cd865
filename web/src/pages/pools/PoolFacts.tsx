import type { Deployment } from '../../api/deployments';
import { useVCenters } from '../../api/vcenters';
import { formatMib } from '../../format';
import type { DeploymentInventory } from './fleetApi';
import { DesktopsPresent } from './DesktopsPresent';
import { datastoresOf, poolTypeOf } from './poolModel';

type Answer = { data?: DeploymentInventory; isError: boolean; error: unknown };

/** A deployment's pool at a glance: type, size, golden image, datastores, desktops present. */
export function PoolFacts({ deployment, inventory }: { deployment: Deployment; inventory: Answer }) {
  const { plan } = deployment;
  const pool = plan.pool;
  const datastores = datastoresOf(plan);
  const vcenters = useVCenters();
  const vcenter = vcenters.data?.find((v) => v.id === deployment.vcenter_id);
  return (
    <dl className="facts">
      <div>
        <dt>vCenter</dt>
        <dd data-testid="deployment-vcenter">{vcenter ? `${vcenter.name} (${vcenter.host})` : `vCenter ${deployment.vcenter_id}`}</dd>
      </div>
      <div>
        <dt>Horizon</dt>
        <dd data-testid="deployment-horizon">
          {plan.horizon ? `${plan.horizon.endpoint} (pool ${plan.horizon.pool_name ?? pool?.name ?? ''})` : 'not handed to Horizon'}
        </dd>
      </div>
      <div>
        <dt>Type</dt>
        <dd>{pool ? poolTypeOf(pool) : 'No desktop pool'}</dd>
      </div>
      {pool && (
        <>
          <div>
            <dt>Size</dt>
            <dd data-testid="pool-count">
              {pool.count} desktops × {pool.vcpus ?? 2} vCPU, {formatMib(pool.memory_mb ?? 4096)}
            </dd>
          </div>
          <div>
            <dt>Golden image</dt>
            <dd>
              <code data-testid="pool-source">
                {pool.golden_vm}@{pool.snapshot}
              </code>
            </dd>
          </div>
          <div>
            <dt>Desktops in vCenter</dt>
            <dd>
              <DesktopsPresent inventory={inventory} />
            </dd>
          </div>
        </>
      )}
      <div>
        <dt>{datastores.length === 1 ? 'Datastore' : 'Datastores'}</dt>
        <dd>{datastores.length ? datastores.join(', ') : 'none'}</dd>
      </div>
      <div>
        <dt>Appliances</dt>
        <dd>{plan.fleet ? plan.fleet.appliances.length : 'none'}</dd>
      </div>
      <div>
        <dt>Placement</dt>
        <dd>
          {plan.datacenter} / {plan.cluster}
        </dd>
      </div>
    </dl>
  );
}
