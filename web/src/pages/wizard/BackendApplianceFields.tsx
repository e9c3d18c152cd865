import type { Datastore, Network } from '../../api/types';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { SIZES, type Size } from './backendModel';
import type { Draft } from './draft';

type Backend = Draft['backend'];

interface Props {
  backend: Backend;
  networks: Network[];
  datastores: Datastore[];
  errors: Record<string, string>;
  set: (key: 'size' | 'ovaPath' | 'network' | 'bootDatastore', value: string) => void;
}

/** What every appliance shares: the OVA, its size option, its port group and where its boot disk goes. */
export function BackendApplianceFields({ backend, networks, datastores, errors, set }: Props) {
  const size = SIZES.find((s) => s.value === backend.size);
  return (
    <div className="form-grid">
      <TextField
        label="Appliance OVA"
        name="ovaPath"
        value={backend.ovaPath}
        hint="Full path of the arcvsa OVA on the machine running arcvsa, e.g. /srv/arcvsa/arcvsa.ova. It is checked when the plan is made."
        error={errors.ovaPath}
        onChange={(value) => set('ovaPath', value)}
      />
      <SelectField
        label="Appliance size"
        name="size"
        value={backend.size}
        options={SIZES}
        hint={size?.hint}
        error={errors.size}
        onChange={(value) => set('size', value as Size)}
      />
      <SelectField
        label="Network"
        name="network"
        value={backend.network}
        options={[{ value: '', label: 'Choose a port group…' }, ...networks.map((n) => ({ value: n.name, label: n.name }))]}
        hint="Port group of the NFS network: the hosts mount the datastore from the appliances over it."
        error={errors.network}
        onChange={(value) => set('network', value)}
      />
      <SelectField
        label="Boot datastore"
        name="bootDatastore"
        value={backend.bootDatastore}
        options={[
          { value: '', label: 'Choose a datastore…' },
          ...datastores.map((d) => ({ value: d.name, label: `${d.name} — ${d.type}, ${formatBytes(d.free_bytes)} free` })),
        ]}
        hint="Where the appliances’ own disks go; every chosen host must see it."
        error={errors.bootDatastore}
        onChange={(value) => set('bootDatastore', value)}
      />
    </div>
  );
}
