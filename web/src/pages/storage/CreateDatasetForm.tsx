import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { type DesktopPoolType, useCreateDataset } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { POOL_TYPES } from './poolTypes';

// The api's rule for one component below the pool (appliance/control/names.py).
const COMPONENT = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** A dataset for one desktop pool's datastore, its properties taken from the pool type's tuning profile. */
export function CreateDatasetForm({ pool, onDone }: { pool: string; onDone: () => void }) {
  const create = useCreateDataset();
  const [name, setName] = useState('');
  const [profile, setProfile] = useState<DesktopPoolType>('stateless-linked');
  const [error, setError] = useState<string | undefined>();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const child = name.trim();
    const invalid = !child
      ? 'Enter a name for the dataset.'
      : child.split('/').every((part) => COMPONENT.test(part))
        ? undefined
        : 'Letters, digits, _ . : - (start with a letter or digit); / separates levels.';
    setError(invalid);
    if (invalid) return;
    create.mutate({ name: `${pool}/${child}`, profile, properties: {} }, { onSuccess: onDone });
  };

  const apiError = create.error instanceof ApiError ? create.error : null;
  const nameError = error ?? (apiError && (apiError.field === 'name' || apiError.code === 'invalid_name' || apiError.code === 'already_exists') ? apiError.message : undefined);
  return (
    <section className="card storage-form" aria-labelledby="create-dataset-title">
      <h2 id="create-dataset-title" cds-text="section">
        Create a dataset on {pool}
      </h2>
      <form onSubmit={submit} noValidate aria-labelledby="create-dataset-title">
        {create.isError && !nameError && <FormAlert>{messageOf(create.error)}</FormAlert>}
        <div className="form-row">
          <TextField
            label="Name"
            name="name"
            value={name}
            hint={`Created as ${pool}/${name.trim() || 'name'}, e.g. vdi-linked`}
            error={nameError}
            onChange={(value) => {
              setName(value);
              setError(undefined);
              create.reset();
            }}
            autoFocus
          />
          <SelectField
            label="Pool type (tuning profile)"
            name="profile"
            value={profile}
            options={POOL_TYPES}
            hint="Sets recordsize, compression, caching and log bias for this kind of desktop pool."
            onChange={(value) => setProfile(value as DesktopPoolType)}
          />
        </div>
        <div className="form-actions">
          <CdsButton type="submit" disabled={create.isPending} loadingState={create.isPending ? 'loading' : 'default'}>
            Create dataset
          </CdsButton>
          <CdsButton type="button" action="outline" onClick={onDone} disabled={create.isPending}>
            Cancel
          </CdsButton>
        </div>
      </form>
    </section>
  );
}
