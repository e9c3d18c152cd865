import { CdsButton } from '@cds/react/button';
import { useEffect } from 'react';
import { useInventory } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import type { StepProps } from './draft';
import { PlacementHostPicker } from './PlacementHostPicker';
import { APPLIANCE_SIZES, clustersOf, hostsOf, onlyChoice, validatePlacement } from './placementModel';
import { useRefusal } from './placementRefusal';
import { useReturnedError } from './ReviewErrors';

const choose = (what: string) => ({ value: '', label: `Choose a ${what}…` });

/** Step 2: the datacenter, the cluster, and the hosts that each get an appliance. */
export function StepPlacement({ draft, update, next, back }: StepProps) {
  const inventory = useInventory(draft.vcenterId ?? 0);
  const { errors, refuse, clear } = useRefusal();
  const returned = useReturnedError();
  const size = APPLIANCE_SIZES[draft.backend.size];
  const loaded = inventory.data;

  // The only datacenter and the only cluster are chosen already, as vSphere's own wizards do.
  useEffect(() => {
    if (!loaded) return;
    const datacenter = draft.datacenter || onlyChoice(loaded.datacenters);
    const cluster = draft.cluster || (datacenter ? onlyChoice(clustersOf(loaded, datacenter)) : '');
    if (datacenter !== draft.datacenter || cluster !== draft.cluster) update((d) => ({ ...d, datacenter, cluster }));
  }, [loaded, draft.datacenter, draft.cluster, update]);

  // A refusal of the plan that Review sent back here is shown at its field (the hosts, for an appliance's host).
  useEffect(() => {
    if (!returned) return;
    const field = returned.field.replace(/^plan\.?/, '');
    const key = field === 'datacenter' || field === 'cluster' ? field : 'hosts';
    refuse({ [key]: returned.message });
  }, [returned, refuse]);

  if (inventory.isPending) return <Loading label="Reading the vCenter inventory" />;
  if (inventory.isError) {
    return (
      <>
        <ErrorState title="Could not read the vCenter inventory" error={inventory.error} onRetry={() => void inventory.refetch()} />
        <div className="form-actions">
          <CdsButton action="outline" onClick={back}>
            Back
          </CdsButton>
        </div>
      </>
    );
  }
  const inv = inventory.data;
  const clusters = clustersOf(inv, draft.datacenter);
  const hosts = hostsOf(inv, draft.datacenter, draft.cluster);

  const submit = () => {
    if (!refuse(validatePlacement(inv, draft.datacenter, draft.cluster, draft.hosts, size))) next();
  };

  return (
    <>
      <div className="form-grid">
        <SelectField
          label="Datacenter"
          name="datacenter"
          value={draft.datacenter}
          options={[choose('datacenter'), ...inv.datacenters.map((dc) => ({ value: dc.name, label: dc.name }))]}
          error={errors.datacenter}
          onChange={(datacenter) => {
            clear('datacenter');
            update((d) => ({ ...d, datacenter, cluster: '', hosts: [] }));
          }}
        />
        <SelectField
          label="Cluster"
          name="cluster"
          value={draft.cluster}
          options={[choose('cluster'), ...clusters.map((c) => ({ value: c.name, label: c.name }))]}
          error={errors.cluster}
          hint={draft.datacenter && clusters.length === 0 ? 'This datacenter has no cluster.' : undefined}
          disabled={!draft.datacenter}
          onChange={(cluster) => {
            clear('cluster');
            update((d) => ({ ...d, cluster, hosts: [] }));
          }}
        />
      </div>
      {draft.cluster && (
        <PlacementHostPicker
          inventory={inv}
          hosts={hosts}
          chosen={draft.hosts}
          size={size}
          error={errors.hosts}
          onToggle={(host, on) => {
            clear('hosts');
            // Kept in the cluster's order: the appliances are numbered in it (arcvsa-01 on the first host).
            const keep = (name: string) => (name === host ? on : draft.hosts.includes(name));
            update((d) => ({ ...d, hosts: hosts.map((h) => h.name).filter(keep) }));
          }}
        />
      )}
      <div className="form-actions">
        <CdsButton action="outline" onClick={back}>
          Back
        </CdsButton>
        <CdsButton onClick={submit}>Next</CdsButton>
      </div>
    </>
  );
}
