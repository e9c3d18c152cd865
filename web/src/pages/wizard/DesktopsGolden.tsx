import type { components } from '../../api/schema';
import { SelectField } from '../../components/SelectField';

type Inventory = components['schemas']['Inventory'];
type Snapshot = components['schemas']['Snapshot'];

interface Props {
  inventory: Inventory;
  datacenter: string;
  goldenVm: string;
  snapshot: string;
  errors: { goldenVm?: string; snapshot?: string };
  onChange: (goldenVm: string, snapshot: string) => void;
}

/** Every snapshot of a tree, parents first, labelled with its path ('base / patched'). */
export function flattenSnapshots(tree: readonly Snapshot[], parent = ''): { name: string; label: string }[] {
  return tree.flatMap((s) => {
    const label = parent ? `${parent} / ${s.name}` : s.name;
    return [{ name: s.name, label }, ...flattenSnapshots(s.children ?? [], label)];
  });
}

/** The golden VM (VMs of the datacenter that have a snapshot) and the snapshot the desktops clone from. */
export function DesktopsGolden({ inventory, datacenter, goldenVm, snapshot, errors, onChange }: Props) {
  const dc = inventory.datacenters.find((d) => d.name === datacenter)?.moid;
  const vms = inventory.vms
    .filter((vm) => (!dc || vm.datacenter === dc) && vm.snapshots.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  const chosen = vms.find((vm) => vm.name === goldenVm);
  const snapshots = chosen ? flattenSnapshots(chosen.snapshots) : [];
  const pickVm = (name: string) => {
    const vm = vms.find((v) => v.name === name);
    const all = vm ? flattenSnapshots(vm.snapshots) : [];
    onChange(name, all.at(-1)?.name ?? ''); // the newest snapshot by default
  };
  const noGolden = vms.length === 0 ? 'No VM of this datacenter has a snapshot: take one of the golden VM in vCenter.' : undefined;
  return (
    <div className="form-row">
      <SelectField
        label="Golden VM"
        name="goldenVm"
        value={chosen ? goldenVm : ''}
        options={[{ value: '', label: vms.length ? 'Pick a VM' : 'No VM with a snapshot' }, ...vms.map((vm) => ({ value: vm.name, label: `${vm.name} (${vm.num_cpu} vCPU, ${vm.memory_mb} MiB)` }))]}
        error={errors.goldenVm ?? noGolden}
        hint="VMs with at least one snapshot"
        onChange={pickVm}
      />
      <SelectField
        label="Snapshot"
        name="snapshot"
        value={snapshots.some((s) => s.name === snapshot) ? snapshot : ''}
        options={[{ value: '', label: chosen ? 'Pick a snapshot' : 'Pick the golden VM first' }, ...snapshots.map((s) => ({ value: s.name, label: s.label }))]}
        error={errors.snapshot}
        hint="Recompose later by picking a newer one"
        disabled={!chosen}
        onChange={(name) => onChange(goldenVm, name)}
      />
    </div>
  );
}
