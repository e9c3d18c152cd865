import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type KeyboardEvent, useRef, useState } from 'react';
import { messageOf } from '../../api/errors';
import { type User, useChangePassword } from '../../api/settings';
import { FormAlert } from '../../components/FormAlert';
import { TextField } from '../../components/TextField';
import { useFocusFirstInput } from '../storage/useFocusFirstInput';
import { type FieldErrors, apiFieldError, compact, confirmError, passwordError } from './userModel';

const FIELDS = ['current_password', 'new_password'] as const;

/** Set a user's password. Your own needs the current one; every other session of that user ends. */
export function PasswordModal({ user, onClose, onChanged }: { user: User; onClose: () => void; onChanged: () => void }) {
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const fromApi = apiFieldError(change.error, FIELDS);
  const shown = { ...fromApi, ...errors };
  const ref = useRef<HTMLFormElement>(null);
  useFocusFirstInput(ref);

  const submit = (event?: { preventDefault: () => void }) => {
    event?.preventDefault();
    const invalid = compact({
      current_password: user.you && !current ? 'Enter your current password' : undefined,
      new_password: passwordError(password),
      confirm: confirmError(password, confirm),
    });
    setErrors(invalid);
    change.reset();
    if (Object.keys(invalid).length > 0) return;
    const body = { new_password: password, current_password: user.you ? current : null };
    change.mutate({ id: user.id, body }, { onSuccess: onChanged });
  };
  const enter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && event.target instanceof HTMLInputElement) submit(event);
  };

  return (
    <CdsModal aria-labelledby="password-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="password-title" cds-text="title">
          {user.you ? 'Change your password' : `Set a new password for ${user.username}`}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        {/* The actions sit outside the form, in the modal's footer: Enter in a field submits here. */}
        <form ref={ref} className="destroy-form" onSubmit={submit} onKeyDown={enter} noValidate data-testid="password-form">
          <p>
            {user.you
              ? 'Your other sessions end; this one goes on.'
              : `${user.username} is logged out everywhere and logs in again with the new password.`}
          </p>
          {change.isError && !fromApi && <FormAlert>{messageOf(change.error)}</FormAlert>}
          {user.you && (
            <TextField label="Current password" name="current_password" type="password" value={current} onChange={setCurrent} error={shown.current_password} autoComplete="current-password" />
          )}
          <TextField label="New password" name="new_password" type="password" value={password} onChange={setPassword} error={shown.new_password} autoComplete="new-password" hint="8 to 128 characters" />
          <TextField label="New password again" name="confirm" type="password" value={confirm} onChange={setConfirm} error={shown.confirm} autoComplete="new-password" />
        </form>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={change.isPending}>
            Cancel
          </CdsButton>
          <CdsButton onClick={() => submit()} disabled={change.isPending} loadingState={change.isPending ? 'loading' : 'default'}>
            Set password
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
