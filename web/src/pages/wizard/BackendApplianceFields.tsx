import type { Datastore, Network } from '../../api/types';
import type { OvaFile } from '../../api/wizard';
import { useState } from 'react';
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
  /** The OVAs found on the machine running arcvsa, newest first. */
  ovas: OvaFile[];
  errors: Record<string, string>;
  set: (key: 'size' | 'ovaPath' | 'network' | 'storageNetwork' | 'bootDatastore', value: string) => void;
}

/** What every appliance shares: the OVA, its size option, its port groups and where its boot disk goes. */
const OTHER = 'other';

const describeOva = (ova: OvaFile) => `${ova.name} — ${formatBytes(ova.size_bytes)}, ${new Date(ova.modified_at).toLocaleString()}`;

export function BackendApplianceFields({ backend, networks, datastores, ovas, errors, set }: Props) {
  const size = SIZES.find((s) => s.value === backend.size);
  const found = ovas.some((o) => o.path === backend.ovaPath);
  const [other, setOther] = useState(false);
  const typed = ovas.length === 0 || other || (!found && backend.ovaPath !== '');
  return (
    <div className="form-grid">
      {ovas.length > 0 && (
        <SelectField
          label="Appliance OVA"
          name="ovaChoice"
          value={typed ? OTHER : backend.ovaPath}
          options={[...ovas.map((o) => ({ value: o.path, label: describeOva(o) })), { value: OTHER, label: 'Another file…' }]}
          hint={typed ? undefined : `Found on the machine running arcvsa: ${backend.ovaPath}`}
          error={typed ? undefined : errors.ovaPath}
          onChange={(value) => {
            setOther(value === OTHER);
            set('ovaPath', value === OTHER ? '' : value);
          }}
        />
      )}
      {typed && (
        <TextField
          label={ovas.length > 0 ? 'Path of the OVA' : 'Appliance OVA'}
          name="ovaPath"
          value={backend.ovaPath}
          hint="Full path of the arcvsa OVA on the machine running arcvsa, e.g. /srv/arcvsa/arcvsa.ova. It is checked when the plan is made."
          error={errors.ovaPath}
          onChange={(value) => set('ovaPath', value)}
        />
      )}
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
        hint={
          backend.storageNetwork
            ? 'Port group of the management network: the web interface, the api and SSH of the appliances.'
            : 'Port group of the NFS network: the hosts mount the datastore from the appliances over it.'
        }
        error={errors.network}
        onChange={(value) => set('network', value)}
      />
      <SelectField
        label="Storage port group"
        name="storageNetwork"
        value={backend.storageNetwork ?? ''}
        options={[{ value: '', label: 'None: NFS on the management network' }, ...networks.map((n) => ({ value: n.name, label: n.name }))]}
        hint="Port group of the ESXi hosts' storage VMkernel ports; leave empty to serve NFS on the management network"
        error={errors.storageNetwork}
        onChange={(value) => set('storageNetwork', value)}
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
