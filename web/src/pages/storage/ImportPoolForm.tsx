import { CdsButton } from '@cds/react/button';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { useImportPool } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { TextField } from '../../components/TextField';
import { poolNameError } from './poolModel';
import { useFocusFirstInput } from './useFocusFirstInput';

/** Import a pool found on this appliance's LUNs (exported here before, or LUNs moved from another one). */
export function ImportPoolForm({ onDone }: { onDone: () => void }) {
  const importPool = useImportPool();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const section = useRef<HTMLElement>(null);
  // The button that opened the form is disabled now: focus moves to the name.
  useFocusFirstInput(section);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = poolNameError(name);
    setError(invalid);
    if (!invalid) importPool.mutate(name.trim(), { onSuccess: onDone });
  };

  // A refusal about the name (unknown, taken, invalid) is shown at the field; a system fault above the form.
  const apiError = importPool.error instanceof ApiError ? importPool.error : null;
  const refused = apiError && apiError.status >= 400 && apiError.status < 500 ? apiError.message : undefined;
  const nameError = error ?? refused;
  return (
    <section ref={section} className="card storage-form" aria-labelledby="import-pool-title">
      <h2 id="import-pool-title" cds-text="section">
        Import a pool
      </h2>
      <p className="muted">
        A pool exported from this appliance, or whose LUNs were presented to it from another one. Its datasets come
        back with it; NFS exports are added again on the NFS exports page.
      </p>
      <form onSubmit={submit} noValidate aria-labelledby="import-pool-title">
        {importPool.isError && !nameError && <FormAlert>{messageOf(importPool.error)}</FormAlert>}
        <div className="form-row">
          <TextField
            label="Pool name"
            name="import-name"
            value={name}
            hint="The name it had when it was exported, e.g. tank"
            error={nameError}
            onChange={(value) => {
              setName(value);
              setError(undefined);
              importPool.reset();
            }}
          />
        </div>
        <div className="form-actions">
          <CdsButton type="submit" disabled={importPool.isPending} loadingState={importPool.isPending ? 'loading' : 'default'}>
            Import
          </CdsButton>
          <CdsButton type="button" action="outline" onClick={onDone} disabled={importPool.isPending}>
            Cancel
          </CdsButton>
          {importPool.isPending && (
            <span className="muted" role="status">
              Looking for the pool on the LUNs…
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
