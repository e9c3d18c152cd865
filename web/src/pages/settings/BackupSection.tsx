import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { MIN_PASSPHRASE, passphraseErrors, useMakeBackup, useRestoreBackup } from '../../api/backup';
import { ApiError, messageOf } from '../../api/errors';
import { FormAlert } from '../../components/FormAlert';
import { RestoreResult } from '../../components/RestoreResult';
import { TextField } from '../../components/TextField';

/** Back up the configuration to a passphrase-encrypted file; restore one onto this appliance. */
export function BackupSection() {
  return (
    <section className="card storage-section" aria-labelledby="backup-title" data-testid="backup">
      <div className="section-head">
        <h2 id="backup-title" cds-text="section">
          Configuration backup
        </h2>
      </div>
      <p className="muted">
        One file with the users, vCenter connections, NFS exports, iSCSI targets, tuning, notification settings, the
        TLS certificate and the scrape tokens. Passwords, CHAP secrets and the private key are in it encrypted under
        your passphrase: keep the passphrase apart from the file. The data stays on the pools; restoring onto a fresh
        appliance that sees the same LUNs imports them and serves the exports again.
      </p>
      <BackupForm />
      <RestoreForm />
    </section>
  );
}

function BackupForm() {
  const backup = useMakeBackup();
  const [passphrase, setPassphrase] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ passphrase?: string; confirm?: string }>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = passphraseErrors(passphrase, confirm);
    setErrors(found);
    backup.reset();
    if (!found.passphrase && !found.confirm) backup.mutate(passphrase);
  };

  return (
    <form className="settings-form" onSubmit={submit} noValidate aria-label="Back up configuration" data-testid="backup-form">
      <h3 cds-text="subsection">Back up configuration</h3>
      <div className="form-row">
        <TextField label="Passphrase" name="passphrase" type="password" value={passphrase} onChange={setPassphrase} error={errors.passphrase} autoComplete="new-password" hint={`${MIN_PASSPHRASE} characters or more`} />
        <TextField label="Passphrase again" name="confirm" type="password" value={confirm} onChange={setConfirm} error={errors.confirm} autoComplete="new-password" />
      </div>
      <div className="form-actions">
        <CdsButton type="submit" disabled={backup.isPending} loadingState={backup.isPending ? 'loading' : 'default'} data-testid="backup-download">
          Download backup
        </CdsButton>
      </div>
      {backup.isSuccess && <FormAlert status="success">Saved {backup.data.name}.</FormAlert>}
      {backup.isError && <FormAlert>Could not make the backup: {messageOf(backup.error)}</FormAlert>}
    </form>
  );
}

function RestoreForm() {
  const restore = useRestoreBackup();
  const [file, setFile] = useState<File | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const [replace, setReplace] = useState(false);
  const [missing, setMissing] = useState<string | null>(null);
  const configured = restore.error instanceof ApiError && restore.error.status === 409;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    restore.reset();
    if (!file) return setMissing('Choose a backup file');
    if (!passphrase) return setMissing('Enter the passphrase the backup was made with');
    setMissing(null);
    restore.mutate({ file, passphrase, replace });
  };

  return (
    <form className="settings-form" onSubmit={submit} noValidate aria-label="Restore configuration" data-testid="restore-form">
      <h3 cds-text="subsection">Restore</h3>
      <div className="form-row">
        <label>
          Backup file{' '}
          <input type="file" accept=".arcvsa-backup,application/json" onChange={(e) => setFile(e.target.files?.[0] ?? null)} disabled={restore.isPending} data-testid="restore-file" />
        </label>
        <TextField label="Passphrase" name="restore-passphrase" type="password" value={passphrase} onChange={setPassphrase} autoComplete="off" />
      </div>
      {(configured || replace) && (
        <label className="form-row">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} data-testid="restore-replace" /> Replace this
          appliance's configuration (users, exports, vCenter connections, settings)
        </label>
      )}
      <div className="form-actions">
        <CdsButton type="submit" disabled={restore.isPending} loadingState={restore.isPending ? 'loading' : 'default'} data-testid="restore-submit">
          Restore
        </CdsButton>
      </div>
      {missing && <FormAlert>{missing}</FormAlert>}
      {restore.isError && <FormAlert>{messageOf(restore.error)}</FormAlert>}
      {restore.isSuccess && <RestoreResult report={restore.data} />}
    </form>
  );
}
