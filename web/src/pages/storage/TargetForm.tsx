import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { useAllDatasets, useCreateTarget, useCreateVolume } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { HostsField } from './HostsField';
import { NEW_ZVOL, type TargetDraft, type TargetErrors, parseList, validateTarget, zvolBytes } from './targetModel';

const EMPTY: TargetDraft = {
  iqn: '',
  zvol: '',
  newName: '',
  newSizeGib: '',
  initiators: '',
  chap: false,
  chapUser: '',
  chapSecret: '',
};

/**
 * A target with one LUN on a zvol (an existing one, or one made here first). The CHAP secret is sent once
 * and dropped from the form as soon as the api answers: the api never sends it back.
 */
export function TargetForm({ onDone }: { onDone: () => void }) {
  const datasets = useAllDatasets();
  const createTarget = useCreateTarget();
  const createVolume = useCreateVolume();
  const [draft, setDraft] = useState<TargetDraft>(EMPTY);
  const [errors, setErrors] = useState<TargetErrors>({});
  const [failure, setFailure] = useState<unknown>(null);
  const busy = createTarget.isPending || createVolume.isPending;
  const set = (patch: Partial<TargetDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setFailure(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateTarget(draft);
    setErrors(invalid);
    setFailure(null);
    if (Object.keys(invalid).length) return;
    let zvol = draft.zvol;
    try {
      if (zvol === NEW_ZVOL) {
        const size = zvolBytes(Number(draft.newSizeGib));
        zvol = (await createVolume.mutateAsync({ name: draft.newName.trim(), size_bytes: size, volblocksize: '16K' })).name;
        // The zvol exists now: a retry should use it rather than try to create it again.
        setDraft((d) => ({ ...d, zvol }));
      }
      await createTarget.mutateAsync({
        iqn: draft.iqn.trim().toLowerCase(),
        zvol,
        initiators: parseList(draft.initiators),
        chap: draft.chap ? { user: draft.chapUser, secret: draft.chapSecret } : null,
      });
      setDraft(EMPTY);
      onDone();
    } catch (error) {
      setFailure(error);
    } finally {
      setDraft((d) => ({ ...d, chapSecret: '' }));
    }
  };

  const zvols = datasets.data.filter((d) => d.type === 'VOLUME');
  const apiField = failure instanceof ApiError ? failure.field : null;
  const fieldError = (name: keyof TargetErrors) =>
    errors[name] ?? (apiField === name ? messageOf(failure) : undefined);
  return (
    <section className="card storage-form" aria-labelledby="target-form-title">
      <h2 id="target-form-title" cds-text="section">
        Add an iSCSI target
      </h2>
      <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="target-form-title">
        {failure !== null && !apiField && <FormAlert>{messageOf(failure)}</FormAlert>}
        <TextField
          label="Target IQN"
          name="iqn"
          value={draft.iqn}
          hint="e.g. iqn.2026-11.com.example.arcvsa:vdi-lun0"
          error={fieldError('iqn')}
          onChange={(iqn) => set({ iqn })}
          autoFocus
        />
        <SelectField
          label="Zvol"
          name="zvol"
          value={draft.zvol}
          error={fieldError('zvol')}
          hint={
            datasets.error ? `The zvols could not be read: ${messageOf(datasets.error)}` : 'The zvol whose blocks the LUN serves.'
          }
          options={[
            { value: '', label: datasets.isPending ? 'Reading the zvols…' : 'Pick a zvol' },
            ...zvols.map((z) => ({ value: z.name, label: z.name })),
            { value: NEW_ZVOL, label: 'New zvol…' },
          ]}
          onChange={(zvol) => set({ zvol })}
        />
        {draft.zvol === NEW_ZVOL && (
          <div className="form-row">
            <TextField label="New zvol name" name="newName" value={draft.newName} hint="pool/name, e.g. tank/lun0" error={fieldError('newName')} onChange={(newName) => set({ newName })} />
            <TextField label="Size (GiB)" name="newSizeGib" type="number" width="short" value={draft.newSizeGib} error={fieldError('newSizeGib')} onChange={(newSizeGib) => set({ newSizeGib })} />
          </div>
        )}
        <HostsField
          label="Initiator IQNs"
          name="initiators"
          hint="One per line: each ESXi host's software iSCSI adapter IQN (Storage Adapters in the vSphere Client)."
          value={draft.initiators}
          error={fieldError('initiators')}
          onChange={(initiators) => set({ initiators })}
        />
        <label className="checkbox-line">
          <input type="checkbox" checked={draft.chap} onChange={(e) => set({ chap: e.target.checked, chapSecret: '' })} />
          <span>Require CHAP authentication</span>
        </label>
        {draft.chap && (
          <div className="form-row">
            <TextField label="CHAP user" name="chapUser" value={draft.chapUser} autoComplete="off" error={fieldError('chapUser')} onChange={(chapUser) => set({ chapUser })} />
            <TextField
              label="CHAP secret"
              name="chapSecret"
              type="password"
              autoComplete="new-password"
              value={draft.chapSecret}
              hint="12 to 64 characters; arcvsa never shows it again."
              error={fieldError('chapSecret')}
              onChange={(chapSecret) => set({ chapSecret })}
            />
          </div>
        )}
        <div className="form-actions">
          <CdsButton type="submit" disabled={busy} loadingState={busy ? 'loading' : 'default'}>
            Add target
          </CdsButton>
          <CdsButton type="button" action="outline" onClick={onDone} disabled={busy}>
            Cancel
          </CdsButton>
          {createVolume.isPending && (
            <span className="muted" role="status">
              Creating the zvol…
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
