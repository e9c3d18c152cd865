import { CdsButton } from '@cds/react/button';
import { type FormEvent, useMemo, useState } from 'react';
import { useInventory, useVCenters } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { TextField } from '../../components/TextField';
import { DesktopsGolden } from './DesktopsGolden';
import { DesktopsHorizon } from './DesktopsHorizon';
import { type DesktopErrors, type Desktops, desktopFieldOf, validateDesktops } from './desktopsModel';
import type { StepProps } from './draft';
import { NamePreview } from './NamePreview';
import { useReturnedError } from './ReviewErrors';
import './Deploy.css';

const num = (value: number) => (Number.isFinite(value) ? String(value) : '');

/** Step 5: the pool's name, naming pattern, golden image, sizing, customization and Horizon (the count: step 4). */
export function StepDesktops({ draft, update, next, back }: StepProps) {
  const inventory = useInventory(draft.vcenterId ?? 0);
  const vcenters = useVCenters();
  const returned = useReturnedError();
  const [tried, setTried] = useState(false);
  // The api's refusal, sent back from Review: shown beside its field until that field changes.
  const [apiError, setApiError] = useState(returned);
  const d = draft.desktops;
  // Once something was deployed the pool's own desktops are in the inventory: only the api can tell them apart.
  const taken = useMemo(
    () => new Set(draft.jobId === null ? (inventory.data?.vms ?? []).map((vm) => vm.name) : []),
    [inventory.data, draft.jobId],
  );
  const errors: DesktopErrors = tried ? validateDesktops(d, taken) : {};
  const apiField = desktopFieldOf(apiError?.field);
  if (apiError && apiField && !errors[apiField]) errors[apiField] = apiError.message;

  const set = (change: Partial<Desktops>) => {
    if (apiField && apiField.split('.')[0]! in change) setApiError(null);
    update((dr) => ({ ...dr, desktops: { ...dr.desktops, ...change } }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    const found = validateDesktops(d, taken);
    const golden = inventory.data?.vms.some((vm) => vm.name === d.goldenVm);
    if (Object.keys(found).length || !golden) {
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    next();
  };

  if (draft.vcenterId === null) return <FormAlert status="warning">Pick a vCenter in step 1 first.</FormAlert>;
  if (inventory.isPending) return <Loading label="Reading the vCenter's VMs and snapshots" />;
  if (inventory.isError) return <ErrorState title="Could not read the vCenter inventory" error={inventory.error} onRetry={() => void inventory.refetch()} />;
  const vcHost = vcenters.data?.find((vc) => vc.id === draft.vcenterId)?.host ?? '';

  return (
    <form className="wizard-form" onSubmit={submit} noValidate aria-labelledby="wizard-step-title">
      {apiError && !apiField && <FormAlert>{apiError.message}</FormAlert>}
      <div className="form-row">
        <TextField label="Deployment name" name="name" value={d.name} hint="Lower case; recorded on every object it creates, and the pool's name" error={errors.name} onChange={(name) => set({ name })} autoFocus />
        {/* Step 4 asks the count (the appliances are sized for it): shown here, beside the names it gives. */}
        <TextField label="Desktops" name="count" type="number" width="short" value={num(d.count)} readOnly hint="Set in step 4" error={errors.count} onChange={() => undefined} />
      </div>
      <div className="form-row">
        <TextField label="Naming pattern" name="naming" value={d.naming} hint="The run of '#' is the desktop number, zero-padded" error={errors.naming} onChange={(naming) => set({ naming })} />
        <TextField label="First number" name="firstNumber" type="number" width="short" value={num(d.firstNumber)} error={errors.firstNumber} onChange={(v) => set({ firstNumber: v === '' ? NaN : Number(v) })} />
        <TextField label="VM folder" name="folder" value={d.folder} hint="Under the datacenter; made if missing" error={errors.folder} onChange={(folder) => set({ folder })} />
      </div>
      <NamePreview naming={d.naming} count={d.count} firstNumber={d.firstNumber} />
      <DesktopsGolden
        inventory={inventory.data}
        datacenter={draft.datacenter}
        goldenVm={d.goldenVm}
        snapshot={d.snapshot}
        errors={{ goldenVm: errors.goldenVm ?? (tried && d.goldenVm && !inventory.data.vms.some((vm) => vm.name === d.goldenVm) ? `${d.goldenVm} is not in this vCenter any more.` : undefined), snapshot: errors.snapshot }}
        onChange={(goldenVm, snapshot) => set({ goldenVm, snapshot })}
      />
      <div className="form-row">
        <TextField label="vCPUs" name="vcpus" type="number" width="short" value={num(d.vcpus)} error={errors.vcpus} onChange={(v) => set({ vcpus: v === '' ? NaN : Number(v) })} />
        <TextField label="Memory (MiB)" name="memoryMb" type="number" width="short" value={num(d.memoryMb)} error={errors.memoryMb} onChange={(v) => set({ memoryMb: v === '' ? NaN : Number(v) })} />
        <TextField label="Customization spec" name="customizationSpec" value={d.customizationSpec} hint="Optional: a guest customization spec of this vCenter" error={errors.customizationSpec} onChange={(customizationSpec) => set({ customizationSpec })} />
      </div>
      <DesktopsHorizon horizon={d.horizon} vcenterHost={vcHost} errors={errors} onChange={(horizon) => set({ horizon })} />
      <div className="form-actions">
        <CdsButton type="button" action="outline" onClick={back}>
          Back
        </CdsButton>
        <CdsButton type="submit">Next: review</CdsButton>
      </div>
    </form>
  );
}
