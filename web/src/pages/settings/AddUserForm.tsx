import { CdsButton } from '@cds/react/button';
import { type FormEvent, useRef, useState } from 'react';
import { messageOf } from '../../api/errors';
import { useCreateUser } from '../../api/settings';
import { FormAlert } from '../../components/FormAlert';
import { TextField } from '../../components/TextField';
import { useFocusFirstInput } from '../storage/useFocusFirstInput';
import { type FieldErrors, apiFieldError, compact, confirmError, passwordError, usernameError } from './userModel';

const FIELDS = ['username', 'password'] as const;

/** Add an administrator: a name and a password typed twice. */
export function AddUserForm({ onDone }: { onDone: () => void }) {
  const create = useCreateUser();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const ref = useRef<HTMLFormElement>(null);
  useFocusFirstInput(ref);
  const fromApi = apiFieldError(create.error, FIELDS);
  const shown = { ...fromApi, ...errors };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = compact({
      username: usernameError(username.trim()),
      password: passwordError(password),
      confirm: confirmError(password, confirm),
    });
    setErrors(invalid);
    create.reset();
    if (Object.keys(invalid).length === 0) create.mutate({ username: username.trim(), password }, { onSuccess: onDone });
  };

  return (
    <section className="card storage-form" aria-labelledby="add-user-title">
      <h2 id="add-user-title" cds-text="section">
        Add an administrator
      </h2>
      <form ref={ref} onSubmit={submit} noValidate aria-labelledby="add-user-title" data-testid="add-user-form">
        {create.isError && !fromApi && <FormAlert>{messageOf(create.error)}</FormAlert>}
        <div className="form-row">
          <TextField label="User name" name="username" value={username} onChange={setUsername} error={shown.username} autoComplete="off" hint="Letters, digits, '.', '_' or '-'" />
        </div>
        <div className="form-row">
          <TextField label="Password" name="password" type="password" value={password} onChange={setPassword} error={shown.password} autoComplete="new-password" hint="8 to 128 characters" />
          <TextField label="Password again" name="confirm" type="password" value={confirm} onChange={setConfirm} error={shown.confirm} autoComplete="new-password" />
        </div>
        <div className="form-actions">
          <CdsButton type="submit" disabled={create.isPending} loadingState={create.isPending ? 'loading' : 'default'}>
            Add user
          </CdsButton>
          <CdsButton type="button" action="outline" onClick={onDone} disabled={create.isPending}>
            Cancel
          </CdsButton>
        </div>
      </form>
    </section>
  );
}
