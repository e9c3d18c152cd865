import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { type Dataset, type DatasetProperties, useUpdateDataset } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { useFocusFirstInput } from './useFocusFirstInput';
import { COMPRESSIONS, type DatasetDraft, type DraftField, changes, draftOf, fieldOfRefusal, sizeError } from './datasetModel';

const SIZE_HINT = 'A size like 100G or 512M, or none.';

/** Quota, reservation and compression of one dataset; only the fields changed are sent. */
export function EditDatasetModal({ dataset, onClose }: { dataset: Dataset; onClose: () => void }) {
  const update = useUpdateDataset();
  const [initial] = useState(() => draftOf(dataset));
  const [draft, setDraft] = useState<DatasetDraft>(initial);
  const [errors, setErrors] = useState<Partial<Record<DraftField, string>>>({});
  const [sent, setSent] = useState<DatasetProperties>({});
  const volume = dataset.type === 'VOLUME';
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstInput(form);
  const set = (key: DraftField, value: string) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
    update.reset();
  };

  const save = () => {
    const invalid = { quota: volume ? undefined : sizeError(draft.quota), reservation: sizeError(draft.reservation) };
    setErrors(invalid);
    if (invalid.quota || invalid.reservation) return;
    const properties = changes(initial, draft);
    if (!Object.keys(properties).length) {
      onClose(); // nothing changed: nothing to send
      return;
    }
    setSent(properties);
    update.mutate({ name: dataset.name, properties }, { onSuccess: onClose });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save();
  };
  // Two text fields and no native submit button: Enter would not submit the form by itself.
  const enter = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    if (!update.isPending) save();
  };

  // A refused value (422) is shown at its field; anything else (no such dataset, a system fault) above them.
  const apiError = update.error instanceof ApiError ? update.error : null;
  const refused = apiError?.status === 422 ? fieldOfRefusal(apiError.field, apiError.message, sent) : null;
  const errorOf = (key: DraftField) => errors[key] ?? (refused === key ? apiError?.message : undefined);

  return (
    <CdsModal aria-labelledby="edit-dataset-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="edit-dataset-title" cds-text="title">
          Edit {dataset.name}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form ref={form} className="destroy-form" onSubmit={submit} onKeyDown={enter} noValidate aria-labelledby="edit-dataset-title">
          {update.isError && !refused && <FormAlert>{messageOf(update.error)}</FormAlert>}
          {!volume && (
            <TextField
              label="Quota"
              name="quota"
              value={draft.quota}
              hint={`The most this dataset and its snapshots may use. ${SIZE_HINT}`}
              error={errorOf('quota')}
              onChange={(value) => set('quota', value)}
              readOnly={update.isPending}
            />
          )}
          {volume && <p className="muted">A zvol has no quota: its size is its limit.</p>}
          <TextField
            label="Reservation"
            name="reservation"
            value={draft.reservation}
            hint={`Space kept for it whatever the other datasets use. ${SIZE_HINT}`}
            error={errorOf('reservation')}
            onChange={(value) => set('reservation', value)}
            readOnly={update.isPending}
          />
          <SelectField
            label="Compression"
            name="compression"
            value={draft.compression}
            options={[...new Set([...COMPRESSIONS, initial.compression])].map((c) => ({ value: c, label: c }))}
            hint="lz4 costs almost no CPU and saves space and I/O on desktop images."
            error={errorOf('compression')}
            onChange={(value) => set('compression', value)}
            disabled={update.isPending}
          />
        </form>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={update.isPending}>
            Cancel
          </CdsButton>
          <CdsButton onClick={save} disabled={update.isPending} loadingState={update.isPending ? 'loading' : 'default'}>
            Save
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
