import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ZfsPoolLayout, useCreatePool, useDisks } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { DiskPicker } from './DiskPicker';
import { LAYOUTS, type PoolDraft, type PoolErrors, devicesOf, freeDisks, validatePool } from './poolModel';

/** Create a pool from free disks: a name, a layout, and a role (data, SLOG, L2ARC) for each disk used. */
export function CreatePoolForm({ onDone }: { onDone: () => void }) {
  const disks = useDisks();
  const create = useCreatePool();
  const [draft, setDraft] = useState<PoolDraft>({ name: '', layout: 'stripe', roles: {} });
  const [errors, setErrors] = useState<PoolErrors>({});
  const layout = LAYOUTS.find((l) => l.value === draft.layout)!;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validatePool(draft);
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    create.mutate(
      {
        name: draft.name.trim(),
        layout: draft.layout,
        data: devicesOf(draft, 'data'),
        log: devicesOf(draft, 'log'),
        cache: devicesOf(draft, 'cache'),
        // Only free disks are offered: a disk holding data is never overwritten from this form.
        force: false,
      },
      { onSuccess: onDone },
    );
  };

  const free = disks.data ? freeDisks(disks.data) : [];
  return (
    <section className="card storage-form" aria-labelledby="create-pool-title">
      <h2 id="create-pool-title" cds-text="section">
        Create a pool
      </h2>
      <p className="muted">
        Pools use whole disks by their stable by-id path. Only free disks are offered: nothing on them is overwritten.
      </p>
      {disks.isPending && <Loading label="Looking for free disks" />}
      {disks.isError && (
        <>
          <ErrorState title="Could not read the disks" error={disks.error} onRetry={() => void disks.refetch()} />
          <CdsButton type="button" action="outline" onClick={onDone}>
            Cancel
          </CdsButton>
        </>
      )}
      {disks.isSuccess && (
        <form onSubmit={submit} noValidate aria-labelledby="create-pool-title">
          {create.isError && <FormAlert>{messageOf(create.error)}</FormAlert>}
          <div className="form-row">
            <TextField
              label="Pool name"
              name="name"
              value={draft.name}
              hint="e.g. tank"
              error={errors.name}
              onChange={(name) => setDraft({ ...draft, name })}
              autoFocus
            />
            <SelectField
              label="Layout"
              name="layout"
              value={draft.layout}
              options={LAYOUTS}
              hint={layout.hint}
              onChange={(value) => setDraft({ ...draft, layout: value as ZfsPoolLayout })}
            />
          </div>
          {free.length === 0 ? (
            <FormAlert status="warning">
              No free disk: every disk holds the system, a pool or a file system. Present another LUN to this appliance.
            </FormAlert>
          ) : (
            <DiskPicker
              disks={free}
              roles={draft.roles}
              error={errors.data ?? errors.log}
              onChange={(path, role) => setDraft({ ...draft, roles: { ...draft.roles, [path]: role } })}
            />
          )}
          <div className="form-actions">
            <CdsButton type="submit" disabled={create.isPending || free.length === 0} loadingState={create.isPending ? 'loading' : 'default'}>
              Create pool
            </CdsButton>
            <CdsButton type="button" action="outline" onClick={onDone} disabled={create.isPending}>
              Cancel
            </CdsButton>
            {create.isPending && (
              <span className="muted" role="status">
                Creating the pool (labels are written to every disk)…
              </span>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
