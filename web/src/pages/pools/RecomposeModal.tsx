import { useState } from 'react';
import type { Deployment } from '../../api/deployments';
import { messageOf } from '../../api/errors';
import { useInventory } from '../../api/vcenters';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { PlanChangeModal } from './PlanChangeModal';
import { type Pool, flattenSnapshots } from './poolModel';
import { usePlanChange } from './usePlanChange';

/** Recompose: clone every desktop again from another snapshot of the golden VM (read from vCenter). */
export function RecomposeModal(props: { deployment: Deployment; pool: Pool; onStarted: (jobId: number) => void; onClose: () => void }) {
  // As they were when the dialog opened: a preview stores the changed plan, and the page reads it again.
  const [{ deployment, pool }] = useState(props);
  const change = usePlanChange(deployment);
  const inventory = useInventory(deployment.vcenter_id);
  const dc = inventory.data?.datacenters.find((d) => d.name === deployment.plan.datacenter);
  const golden = inventory.data?.vms.find((vm) => vm.name === pool.golden_vm && (!dc || vm.datacenter === dc.moid));
  const snapshots = golden ? flattenSnapshots(golden.snapshots) : [];
  const [snapshot, setSnapshot] = useState(pool.snapshot);
  const same = snapshot === pool.snapshot;
  const next = same ? null : { ...deployment.plan, pool: { ...pool, snapshot } };
  const options = snapshots.map((s) => ({ value: s.name, label: s.name === pool.snapshot ? `${s.label} (current)` : s.label }));
  if (!snapshots.some((s) => s.name === pool.snapshot)) options.unshift({ value: pool.snapshot, label: `${pool.snapshot} (current, gone)` });
  return (
    <PlanChangeModal
      title={`Recompose ${pool.name}`}
      next={next}
      fields={['pool.snapshot']}
      change={change}
      onStarted={props.onStarted}
      onClose={props.onClose}
    >
      <p>
        The {pool.count} desktops are clones of <code>{pool.golden_vm}@{pool.snapshot}</code>. Recompose replaces each one with a
        fresh clone of the snapshot you pick; what users saved on a desktop goes with it.
      </p>
      {inventory.isPending && <Loading label="Reading the golden VM's snapshots" />}
      {inventory.isError && <p className="text-danger">vCenter could not be read: {messageOf(inventory.error)}</p>}
      {inventory.isSuccess && !golden && (
        <p className="text-danger">vCenter has no VM named {pool.golden_vm} any more.</p>
      )}
      {golden && (
        <SelectField
          label={`Snapshot of ${pool.golden_vm}`}
          name="snapshot"
          value={snapshot}
          options={options}
          onChange={setSnapshot}
          error={change.errorOf('pool.snapshot')}
          hint={same ? 'Pick another snapshot to recompose to' : undefined}
        />
      )}
    </PlanChangeModal>
  );
}
