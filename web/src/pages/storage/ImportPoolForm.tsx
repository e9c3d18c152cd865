import { CdsButton } from '@cds/react/button';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { type ImportableZfsPool, useImportablePools, useImportPool } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { TextField } from '../../components/TextField';
import { poolNameError } from './poolModel';

/**
 * Import a pool found on this appliance's LUNs (exported here before, or LUNs moved from another one).
 * The list is zpool's: each pool with the id that tells two of one name apart, and a new name for the
 * one whose name a pool here already has.
 */
export function ImportPoolForm({ taken, onDone }: { taken: string[]; onDone: () => void }) {
  const found = useImportablePools();
  const section = useRef<HTMLElement>(null);
  // The button that opened the form is disabled now: focus goes to the first pool's name once listed.
  useEffect(() => {
    if (found.isSuccess) section.current?.querySelector<HTMLElement>('input, button')?.focus();
  }, [found.isSuccess]);
  const names = found.data?.map((p) => p.name) ?? [];
  // The form stays open after an import: the list is read again, and the next pool can go in too.
  const [imported, setImported] = useState<string | null>(null);

  return (
    <section ref={section} className="card storage-form" aria-labelledby="import-pool-title">
      <h2 id="import-pool-title" cds-text="section">
        Import a pool
      </h2>
      <p className="muted">
        Pools on this appliance&rsquo;s LUNs that are not imported: exported from here, or on LUNs presented from
        another appliance. Its datasets come back with a pool; NFS exports are added again on the NFS exports page.
      </p>
      {imported && (
        <FormAlert status="success">
          {imported} is imported, with its datasets. Its NFS exports are added again on the NFS exports page.
        </FormAlert>
      )}
      {found.isPending && <Loading label="Looking for pools on the LUNs" />}
      {found.isError && <FormAlert>Could not look for pools on the LUNs: {messageOf(found.error)}</FormAlert>}
      {found.isSuccess && found.data.length === 0 && (
        <p role="status" data-testid="imports-none">
          No pool to import: every pool on this appliance&rsquo;s LUNs is imported.
        </p>
      )}
      {found.isSuccess && found.data.length > 0 && (
        <ul className="import-list" aria-label="Pools found on the LUNs">
          {found.data.map((pool) => (
            <ImportItem
              key={pool.id}
              pool={pool}
              taken={taken.includes(pool.name)}
              twins={names.filter((n) => n === pool.name).length > 1}
              onImported={setImported}
            />
          ))}
        </ul>
      )}
      <div className="form-actions">
        <CdsButton type="button" action="outline" onClick={() => void found.refetch()} disabled={found.isFetching}>
          Look again
        </CdsButton>
        <CdsButton type="button" action="outline" onClick={onDone}>
          Close
        </CdsButton>
      </div>
    </section>
  );
}

interface ItemProps {
  pool: ImportableZfsPool;
  taken: boolean; // a pool of this name is imported here: this one needs a new name
  twins: boolean; // another pool found on the LUNs has the same name
  onImported: (name: string) => void;
}

function ImportItem({ pool, taken, twins, onImported }: ItemProps) {
  const importPool = useImportPool();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const title = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const typed = name.trim();
    const invalid = typed
      ? poolNameError(typed)
      : taken
        ? `A pool named ${pool.name} is imported here: give this one a new name.`
        : undefined;
    setError(invalid);
    if (!invalid) {
      // Not mutate's onSuccess: the list read again after the import drops this item before that would run.
      // A refusal shows from importPool.error.
      importPool.mutateAsync({ id: pool.id, name: typed || undefined }).then((p) => onImported(p.name), () => undefined);
    }
  };

  // A refusal (name taken, pool gone) is shown at the name; a system fault above it.
  const apiError = importPool.error instanceof ApiError ? importPool.error : null;
  const refused = apiError && apiError.status >= 400 && apiError.status < 500 ? apiError.message : undefined;
  const devices = pool.devices.map((d) => `${d.name} (${[d.role, d.state, d.note].filter(Boolean).join(', ')})`);
  return (
    <li className="import-item" data-pool-id={pool.id}>
      <form onSubmit={submit} noValidate aria-labelledby={title}>
        <h3 id={title} cds-text="subsection">
          {pool.name} <span className="muted">id {pool.id}</span>
        </h3>
        <dl className="facts">
          <div>
            <dt>State</dt>
            <dd>{pool.state}</dd>
          </div>
          <div>
            <dt>Devices</dt>
            <dd>{devices.join(', ') || 'none found'}</dd>
          </div>
        </dl>
        {(pool.status || pool.action) && <p className="muted">{[pool.status, pool.action].filter(Boolean).join(' ')}</p>}
        {twins && <p className="muted">Another pool on the LUNs is also named {pool.name}: the id tells them apart.</p>}
        {importPool.isError && !refused && <FormAlert>{messageOf(importPool.error)}</FormAlert>}
        <div className="form-row">
          <TextField
            label="Import as"
            name={`import-name-${pool.id}`}
            value={name}
            hint={taken ? `A pool named ${pool.name} is imported here: a new name is needed` : `Leave empty to keep ${pool.name}`}
            error={error ?? refused}
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
          {importPool.isPending && (
            <span className="muted" role="status">
              Importing {pool.name}…
            </span>
          )}
        </div>
      </form>
    </li>
  );
}
