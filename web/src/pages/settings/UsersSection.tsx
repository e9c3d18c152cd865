import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type User, useDeleteUser, useUsers } from '../../api/settings';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { AddUserForm } from './AddUserForm';
import { PasswordModal } from './PasswordModal';
import { UserTable } from './UserTable';

/** The administrators: every user can do everything; none can delete themselves or the last one. */
export function UsersSection() {
  const users = useUsers();
  const remove = useDeleteUser();
  const [adding, setAdding] = useState(false);
  const [repassword, setRepassword] = useState<User | null>(null);
  const [doomed, setDoomed] = useState<User | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const closeRemove = () => {
    setDoomed(null);
    remove.reset();
  };

  return (
    <section className="card storage-section" aria-labelledby="users-title" data-testid="users">
      <div className="section-head">
        <h2 id="users-title" cds-text="section">
          Users and passwords
        </h2>
        <div className="section-actions">
          <CdsButton size="sm" action="outline" onClick={() => setAdding(true)} disabled={adding}>
            <CdsIcon shape="plus" /> Add user
          </CdsButton>
        </div>
      </div>
      <p className="muted">Every user is an administrator of this appliance and of its deployments.</p>
      {done && <FormAlert status="success">{done}</FormAlert>}
      {adding && (
        <AddUserForm
          onDone={() => {
            setAdding(false);
            setDone(null);
          }}
        />
      )}
      {users.isPending && <Loading label="Loading the users" />}
      {users.isError && <ErrorState title="Could not load the users" error={users.error} onRetry={() => void users.refetch()} />}
      {users.isSuccess && (
        <UserTable users={users.data} onPassword={setRepassword} onDelete={setDoomed} />
      )}
      {repassword && (
        <PasswordModal
          user={repassword}
          onClose={() => setRepassword(null)}
          onChanged={() => {
            setDone(repassword.you ? 'Your password is changed.' : `The password of ${repassword.username} is changed.`);
            setRepassword(null);
          }}
        />
      )}
      {doomed && (
        <ConfirmModal
          title={`Delete ${doomed.username}?`}
          confirmLabel="Delete user"
          busy={remove.isPending}
          error={remove.isError ? messageOf(remove.error) : null}
          onCancel={closeRemove}
          onConfirm={() => remove.mutate(doomed.id, { onSuccess: closeRemove })}
        >
          <strong>{doomed.username}</strong> can no longer log in, and their open sessions end now.
        </ConfirmModal>
      )}
    </section>
  );
}
