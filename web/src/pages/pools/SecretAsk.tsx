import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, useId, useState } from 'react';
import { TextField } from '../../components/TextField';
import { type Ask, SECRET_LABELS } from './secrets';

/** The password a job needs, asked for this run: an empty field (never filled in for the user). */
export function SecretAsk({ ask }: { ask: Ask }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string>();
  const label = SECRET_LABELS[ask.field];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!value) setError(`Give the ${label.toLowerCase()}: the job cannot run without it`);
    else ask.submit(value);
  };
  return (
    <form className="secret-ask" onSubmit={submit} noValidate data-testid="secret-ask" data-field={ask.field}>
      <p>{ask.message}.</p>
      <TextField
        label={label}
        name={ask.field}
        type="password"
        value={value}
        onChange={(v) => {
          setValue(v);
          setError(undefined);
        }}
        error={error}
        hint="Used for this run only: arcvsa keeps no password for its jobs"
        autoComplete="new-password"
        autoFocus
      />
      <div className="form-actions">
        <CdsButton type="button" action="outline" onClick={ask.cancel}>
          Cancel
        </CdsButton>
        <CdsButton type="submit">Continue</CdsButton>
      </div>
    </form>
  );
}

/** SecretAsk in a dialog of its own, while `ask` is set. */
export function SecretDialog({ ask }: { ask: Ask | null }) {
  const titleId = useId();
  if (!ask) return null;
  return (
    <CdsModal aria-labelledby={titleId} onCloseChange={ask.cancel} closable>
      <CdsModalHeader>
        <h2 id={titleId} cds-text="title">
          {SECRET_LABELS[ask.field]} needed
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <SecretAsk key={ask.field} ask={ask} />
      </CdsModalContent>
    </CdsModal>
  );
}
