import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { type ExportView, useAllDatasets, useCreateExport, useUpdateExport } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { type ExportDraft, type ExportErrors, parseClients, validateExport } from './exportModel';
import { HostsField } from './HostsField';
import { ProtocolField } from './ProtocolField';
import { VCenterHostsPicker } from './VCenterHostsPicker';

/** Add an export, or change the hosts, protocol and port rule of one (its dataset stays). */
export function ExportForm({ editing, onDone }: { editing: ExportView | null; onDone: () => void }) {
  const datasets = useAllDatasets();
  const create = useCreateExport();
  const update = useUpdateExport();
  const mutation = editing ? update : create;
  const [draft, setDraft] = useState<ExportDraft>(
    editing
      ? { dataset: editing.dataset, protocol: editing.protocol, clients: editing.clients.join('\n'), insecurePorts: editing.insecure_ports }
      : { dataset: '', protocol: '3', clients: '', insecurePorts: false },
  );
  const [errors, setErrors] = useState<ExportErrors>({});
  const set = (patch: Partial<ExportDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    mutation.reset();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateExport(draft);
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    const clients = parseClients(draft.clients);
    if (editing) {
      update.mutate(
        { id: editing.export_id, body: { clients, protocol: draft.protocol, insecure_ports: draft.insecurePorts } },
        { onSuccess: onDone },
      );
    } else {
      create.mutate(
        { dataset: draft.dataset, protocol: draft.protocol, clients, insecure_ports: draft.insecurePorts },
        { onSuccess: onDone },
      );
    }
  };

  const filesystems = datasets.data.filter((d) => d.type === 'FILESYSTEM' && d.name.includes('/'));
  const apiError = mutation.error instanceof ApiError ? mutation.error : null;
  const clientsError = errors.clients ?? (apiError?.field === 'clients' ? apiError.message : undefined);
  const datasetError = errors.dataset ?? (apiError?.field === 'dataset' ? apiError.message : undefined);
  const title = editing ? `Edit the export of ${editing.dataset}` : 'Add an export';
  return (
    <section className="card storage-form" aria-labelledby="export-form-title">
      <h2 id="export-form-title" cds-text="section">
        {title}
      </h2>
      <form onSubmit={submit} noValidate aria-labelledby="export-form-title">
        {mutation.isError && !clientsError && !datasetError && <FormAlert>{messageOf(mutation.error)}</FormAlert>}
        {!editing && datasets.error && (
          <FormAlert status="warning">The datasets to export could not be read: {messageOf(datasets.error)}</FormAlert>
        )}
        {!editing && (
          <SelectField
            label="Dataset"
            name="dataset"
            value={draft.dataset}
            error={datasetError}
            hint={
              datasets.isPending
                ? 'Reading the datasets…'
                : filesystems.length === 0 && !datasets.error
                  ? 'No dataset to export: create one on the Datasets page first.'
                  : 'Its mount point becomes the NFS path the hosts mount.'
            }
            options={[{ value: '', label: 'Pick a dataset' }, ...filesystems.map((d) => ({ value: d.name, label: `${d.name} (${d.mountpoint ?? 'not mounted'})` }))]}
            onChange={(dataset) => set({ dataset })}
          />
        )}
        <ProtocolField value={draft.protocol} onChange={(protocol) => set({ protocol })} />
        <HostsField value={draft.clients} error={clientsError} onChange={(clients) => set({ clients })} />
        <VCenterHostsPicker clients={draft.clients} onChange={(clients) => set({ clients })} />
        <label className="checkbox-line">
          <input type="checkbox" checked={draft.insecurePorts} onChange={(e) => set({ insecurePorts: e.target.checked })} />
          <span>
            Accept client ports above 1023 <span className="muted">(only when NAT sits between the hosts and the appliance)</span>
          </span>
        </label>
        <div className="form-actions">
          <CdsButton type="submit" disabled={mutation.isPending} loadingState={mutation.isPending ? 'loading' : 'default'}>
            {editing ? 'Save export' : 'Add export'}
          </CdsButton>
          <CdsButton type="button" action="outline" onClick={onDone} disabled={mutation.isPending}>
            Cancel
          </CdsButton>
        </div>
      </form>
    </section>
  );
}
