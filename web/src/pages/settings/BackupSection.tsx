import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { MIN_PASSPHRASE, type RestoreReport, useMakeBackup, useRestoreBackup } from '../../api/backup';
import { ApiError, messageOf } from '../../api/errors';
import { FormAlert } from '../../components/FormAlert';
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
    const found = {
      passphrase: passphrase.length < MIN_PASSPHRASE ? `At least ${MIN_PASSPHRASE} characters` : undefined,
      confirm: confirm !== passphrase ? 'The two passphrases differ' : undefined,
    };
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

function RestoreResult({ report }: { report: RestoreReport }) {
  const lost = report.not_restored;
  return (
    <div data-testid="restore-report">
      <FormAlert status={lost.length ? 'warning' : 'success'}>
        Restored the configuration of {report.source_hostname} (backup of {report.created_at}, arcvsa{' '}
        {report.source_version}).
        {report.sessions_ended && ' Every login ended: log in again with the accounts of the backup.'}
      </FormAlert>
      <ul>
        <li>Pools imported: {report.pools_imported.join(', ') || 'none'}{report.pools_present.length > 0 && ` (already imported: ${report.pools_present.join(', ')})`}</li>
        <li>NFS exports served ({report.nfs_backend}): {report.exports_applied.join(', ') || 'none'}</li>
        <li>iSCSI targets: {report.iscsi_targets_applied.join(', ') || 'none'}</li>
        <li>Users: {report.users.join(', ')}; vCenter connections: {report.vcenters.join(', ') || 'none'}</li>
        <li>Notifications {report.notify_restored ? 'restored' : 'not in the backup'}; tuning: {Object.keys(report.tuning_applied).length} parameters; certificate {report.tls_installed ? 'installed (served after the api restarts)' : 'not installed'}</li>
      </ul>
      {lost.length > 0 && (
        <>
          <p>Not restored:</p>
          <ul data-testid="restore-not-restored">
            {lost.map((item) => (
              <li key={`${item.kind}/${item.name}`}>
                {item.kind} {item.name}: {item.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
