import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, useState } from 'react';
import { MIN_PASSPHRASE, passphraseErrors } from '../../api/backup';
import { messageOf } from '../../api/errors';
import { type FleetBackup, useDownloadFleetBackup, useFleetBackups, useMakeFleetBackup } from '../../api/fleet';
import { FormAlert } from '../../components/FormAlert';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';

const STATE_WORDS = { taken: 'Backed up', failed: 'Failed', 'not deployed': 'Not deployed yet' } as const;

/** What each appliance did in one fleet backup. */
function BackupReport({ backup }: { backup: FleetBackup }) {
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table" data-testid="fleet-backup-report">
        <thead>
          <tr>
            <th scope="col">Appliance</th>
            <th scope="col">Deployment</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {backup.appliances.map((a) => (
            <tr key={`${a.deployment}/${a.appliance}`} data-testid="fleet-backup-row" data-name={a.appliance} data-state={a.state}>
              <th scope="row">{a.appliance}</th>
              <td>{a.deployment}</td>
              <td className={a.state === 'failed' ? 'text-danger' : undefined}>
                {STATE_WORDS[a.state]}
                {a.file && <div className="mono muted small">{a.file}</div>}
                {a.reason && <div className="small">{a.reason}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Back up every appliance at once: each encrypts its own configuration under the passphrase and the manager
 * keeps them in one archive, each file restorable onto its appliance with that appliance's own restore.
 */
export function FleetBackupModal({ onClose }: { onClose: () => void }) {
  const make = useMakeFleetBackup();
  const kept = useFleetBackups();
  const download = useDownloadFleetBackup();
  const [passphrase, setPassphrase] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ passphrase?: string; confirm?: string }>({});

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const found = passphraseErrors(passphrase, confirm);
    setErrors(found);
    make.reset();
    if (!found.passphrase && !found.confirm) make.mutate(passphrase);
  };
  const made = make.data;
  const total = made?.appliances.filter((a) => a.state !== 'not deployed').length ?? 0;

  return (
    <CdsModal aria-labelledby="fleet-backup-title" size="lg" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="fleet-backup-title" cds-text="title">
          Back up every appliance
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form className="destroy-form" onSubmit={submit} noValidate aria-label="Back up every appliance">
          <p>
            Each appliance backs up its own configuration (users, exports, iSCSI targets, tuning, settings, certificate), encrypted
            under this passphrase; the manager keeps them in one archive with a file per appliance, which that appliance&apos;s{' '}
            <em>Settings → Configuration backup → Restore</em> takes as it is. Keep the passphrase apart from the archive.
          </p>
          <div className="form-row">
            <TextField label="Passphrase" name="fleet-passphrase" type="password" value={passphrase} onChange={setPassphrase} error={errors.passphrase} autoComplete="new-password" hint={`${MIN_PASSPHRASE} characters or more`} />
            <TextField label="Passphrase again" name="fleet-confirm" type="password" value={confirm} onChange={setConfirm} error={errors.confirm} autoComplete="new-password" />
          </div>
          {make.isError && <FormAlert>Could not back up the fleet: {messageOf(make.error)}</FormAlert>}
        </form>
        {made && (
          <div className="storage-stack" data-testid="fleet-backup-result">
            <FormAlert status={made.taken === total ? 'success' : 'warning'}>
              {made.taken} of {total} appliances backed up into {made.name} ({formatBytes(made.size_bytes)}).
            </FormAlert>
            <BackupReport backup={made} />
          </div>
        )}
        {kept.data && kept.data.length > 0 && (
          <>
            <h3 cds-text="subsection">Kept on the manager</h3>
            <ul className="fleet-backups-kept" data-testid="fleet-backups-kept">
              {kept.data.map((b) => (
                <li key={b.name}>
                  <CdsButton size="sm" action="flat" onClick={() => download.mutate(b.name)} aria-label={`Download ${b.name}`}>
                    {b.name}
                  </CdsButton>{' '}
                  <span className="muted small">
                    {b.taken} of {b.appliances.filter((a) => a.state !== 'not deployed').length} backed up · {formatBytes(b.size_bytes)}
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
        {download.isError && <FormAlert>Could not download: {messageOf(download.error)}</FormAlert>}
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={make.isPending}>
            Close
          </CdsButton>
          <CdsButton onClick={() => submit()} disabled={make.isPending} loadingState={make.isPending ? 'loading' : 'default'}>
            Back up
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
