import { CdsButton } from '@cds/react/button';
import { type FormEvent, useId, useState } from 'react';
import { messageOf } from '../../api/errors';
import {
  type Release,
  type UpgradeRun,
  type UpgradeState,
  isInProgress,
  isRestarting,
  useApplyUpgrade,
  useDiscardBundle,
  useUpgrades,
  useUploadBundle,
} from '../../api/upgrades';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { formatBytes, formatDateTime } from '../../format';

const STEP_LABELS: Record<UpgradeState, string> = {
  queued: 'Queued',
  verifying: 'Verifying the bundle again',
  installing: 'Installing beside the running release',
  switching: 'Switching: the api restarts as the new release',
  rolling_back: 'Rolling back to the previous release',
  done: 'Done',
  rolled_back: 'Rolled back',
  refused: 'Refused',
  failed: 'Failed',
};

const releaseName = (r: Release) => `${r.version} (release ${r.release})`;

/** In-place upgrades: a signed bundle uploaded, checked and staged, then applied; the api restarts as the
 *  new release, or the previous one comes back if the new one does not start. NFS and iSCSI never stop. */
export function UpgradeSection() {
  const upgrades = useUpgrades();
  return (
    <section className="card storage-section" aria-labelledby="upgrade-title" data-testid="upgrades">
      <div className="section-head">
        <h2 id="upgrade-title" cds-text="section">
          Upgrade
        </h2>
      </div>
      <p className="muted">
        An upgrade bundle (arcvsa-&lt;version&gt;.upgrade) is checked against this appliance&apos;s signing key before it
        is staged. Applying it installs the new release beside the running one and restarts the api as that release;
        NFS and iSCSI clients are not interrupted. If the new release does not come up, the previous one and its
        database serve again.
      </p>
      {upgrades.isPending && <Loading label="Reading the releases" />}
      {upgrades.isError && !upgrades.data && (
        <ErrorState title="Could not read the releases" error={upgrades.error} onRetry={() => void upgrades.refetch()} />
      )}
      {upgrades.data && (
        <div cds-layout="vertical gap:lg">
          <Releases current={upgrades.data.current} installed={upgrades.data.installed} />
          {upgrades.data.last && (
            <RunStatus run={upgrades.data.last} unreachable={isRestarting(upgrades.failureReason)} />
          )}
          {!isInProgress(upgrades.data.last) && upgrades.isError && !isRestarting(upgrades.error) && (
            <FormAlert>Could not read the releases again: {messageOf(upgrades.error)}</FormAlert>
          )}
          {upgrades.data.staged && (
            <Staged staged={upgrades.data.staged} current={upgrades.data.current} busy={isInProgress(upgrades.data.last)} />
          )}
          <UploadForm busy={isInProgress(upgrades.data.last)} />
        </div>
      )}
    </section>
  );
}

function Releases({ current, installed }: { current: Release | null; installed: Release[] }) {
  const kept = installed.filter((r) => r.version !== current?.version);
  return (
    <dl className="facts" data-testid="upgrade-releases">
      <div>
        <dt>Running release</dt>
        <dd data-testid="upgrade-current">
          {current ? releaseName(current) : <span className="muted">none: no release is installed here (not an appliance)</span>}
        </dd>
      </div>
      <div>
        <dt>Kept for a rollback</dt>
        <dd data-testid="upgrade-kept">{kept.length ? kept.map(releaseName).join(', ') : <span className="muted">none</span>}</dd>
      </div>
    </dl>
  );
}

/** The running upgrade step by step, or how the last one ended. */
function RunStatus({ run, unreachable }: { run: UpgradeRun; unreachable: boolean }) {
  const target = run.to_version ?? 'the staged release';
  const previous = run.from_version ?? 'the previous release';
  const running = isInProgress(run);
  return (
    <div cds-layout="vertical gap:sm" data-testid="upgrade-run" data-state={run.state}>
      <h3 cds-text="subsection">{running ? `Upgrading to ${target}` : 'Last upgrade'}</h3>
      {running && unreachable && (
        <p role="status" data-testid="upgrade-restarting">
          The api is restarting… this page reconnects on its own (NFS and iSCSI are not interrupted).
        </p>
      )}
      {running && !unreachable && <Loading label={STEP_LABELS[run.state]} />}
      {run.state === 'done' && (
        <FormAlert status="success">
          Upgraded from {previous} to {target}: arcvsa {target} runs now. Reload the page to use its web interface.
        </FormAlert>
      )}
      {run.state === 'rolled_back' && (
        <FormAlert status="warning">
          The upgrade to {target} was rolled back: {run.error ?? 'the new release did not come up'}. {previous} serves
          again, with its database as it was before the upgrade.
        </FormAlert>
      )}
      {run.state === 'refused' && (
        <FormAlert>
          The upgrader refused the bundle: {run.error ?? 'no reason recorded'}. Nothing was changed.
        </FormAlert>
      )}
      {run.state === 'failed' && (
        <FormAlert>The upgrade to {target} failed: {run.error ?? 'no reason recorded'}.</FormAlert>
      )}
      {running && run.error && <p className="text-danger">{run.error}</p>}
      {(run.steps ?? []).length > 0 && (
        <ol className="small" data-testid="upgrade-steps">
          {(run.steps ?? []).map((step) => (
            <li key={`${step.at}-${step.state}`}>
              <span className="muted">{formatDateTime(step.at)}</span> {STEP_LABELS[step.state]}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function Staged({ staged, current, busy }: { staged: Release; current: Release | null; busy: boolean }) {
  const apply = useApplyUpgrade();
  const discard = useDiscardBundle();
  const [confirming, setConfirming] = useState(false);
  const close = () => {
    setConfirming(false);
    apply.reset();
  };
  return (
    <div cds-layout="vertical gap:sm" data-testid="upgrade-staged">
      <h3 cds-text="subsection">Staged bundle</h3>
      <dl className="facts">
        <div>
          <dt>Version</dt>
          <dd data-testid="staged-version">{staged.version}</dd>
        </div>
        <div>
          <dt>Release</dt>
          <dd>{staged.release}</dd>
        </div>
        <div>
          <dt>Payload</dt>
          <dd>{formatBytes(staged.payload_bytes)}</dd>
        </div>
        <div>
          <dt>SHA-256</dt>
          <dd>
            <code title={staged.payload_sha256}>{staged.payload_sha256.slice(0, 12)}…</code>
          </dd>
        </div>
      </dl>
      <div className="form-actions">
        <CdsButton onClick={() => setConfirming(true)} disabled={busy || apply.isPending || discard.isPending} data-testid="upgrade-apply">
          Apply
        </CdsButton>
        <CdsButton
          action="outline"
          onClick={() => discard.mutate()}
          disabled={busy || apply.isPending || discard.isPending}
          loadingState={discard.isPending ? 'loading' : 'default'}
          data-testid="upgrade-discard"
        >
          Discard
        </CdsButton>
      </div>
      {discard.isError && <FormAlert>Could not discard the bundle: {messageOf(discard.error)}</FormAlert>}
      {confirming && (
        <ConfirmModal
          title={`Upgrade to ${staged.version}?`}
          confirmLabel="Apply upgrade"
          busy={apply.isPending}
          error={apply.isError ? messageOf(apply.error) : null}
          onCancel={close}
          onConfirm={() => apply.mutate(undefined, { onSuccess: close })}
        >
          The api stops and starts again as arcvsa {releaseName(staged)}: this page loses the api for a minute or
          more and follows the upgrade on its own. NFS and iSCSI clients are not interrupted. If {staged.version} does
          not come up, {current ? current.version : 'the running release'} and its database are restored.
        </ConfirmModal>
      )}
    </div>
  );
}

function UploadForm({ busy }: { busy: boolean }) {
  const upload = useUploadBundle();
  const messageId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [missing, setMissing] = useState<string | null>(null);
  // A new key empties the file input once its file is staged.
  const [inputKey, setInputKey] = useState(0);
  const error = missing ?? (upload.isError ? messageOf(upload.error) : null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.reset();
    if (!file) return setMissing('Choose an upgrade bundle (.upgrade)');
    setMissing(null);
    upload.mutate(file, {
      onSuccess: () => {
        setFile(null);
        setInputKey((k) => k + 1);
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Upload an upgrade bundle" cds-layout="vertical gap:sm" data-testid="upgrade-upload">
      <h3 cds-text="subsection">Upload a bundle</h3>
      <div className="form-row">
        <label>
          Upgrade bundle{' '}
          <input
            key={inputKey}
            type="file"
            accept=".upgrade,application/octet-stream"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setMissing(null);
              upload.reset();
            }}
            disabled={busy || upload.isPending}
            aria-invalid={error ? true : undefined}
            aria-describedby={messageId}
            data-testid="upgrade-file"
          />
        </label>
      </div>
      <p id={messageId} className={error ? 'text-danger' : 'muted small'} role={error ? 'alert' : undefined} data-field-message="bundle">
        {error ?? 'The signed .upgrade file of a newer release for this image; it replaces any bundle staged before.'}
      </p>
      <div className="form-actions">
        <CdsButton type="submit" disabled={busy || upload.isPending} loadingState={upload.isPending ? 'loading' : 'default'} data-testid="upgrade-upload-submit">
          {upload.isPending ? 'Checking…' : 'Upload'}
        </CdsButton>
      </div>
    </form>
  );
}
