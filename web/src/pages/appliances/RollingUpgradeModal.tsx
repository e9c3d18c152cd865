import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { useState } from 'react';
import type { Deployment } from '../../api/deployments';
import { messageOf } from '../../api/errors';
import { useFleetBundle, useStartRollingUpgrade, useUploadFleetBundle } from '../../api/fleet';
import { useJobStream } from '../../api/jobStream';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { JobProgress } from '../pools/JobProgress';

/** What the roll said last about each appliance, in the plan's order. */
function ApplianceProgress({ jobId, names }: { jobId: number; names: string[] }) {
  const follow = useJobStream(jobId);
  const last = new Map<string, string>();
  for (const e of follow.events) if (e.object) last.set(e.object, e.message);
  return (
    <ul className="fleet-backups-kept" data-testid="upgrade-appliances" aria-label="Each appliance">
      {names.map((name) => (
        <li key={name} data-testid="upgrade-appliance" data-name={name}>
          <strong>{name}</strong>: <span className="muted">{last.get(name) ?? 'waiting for its turn'}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A rolling upgrade of one deployment's appliances with the bundle kept on the manager: staged on every
 * appliance first, then one at a time, each healthy on the new release before the next; the first that
 * fails stops it and the rest stay on their release.
 */
export function RollingUpgradeModal({ deployment, onClose }: { deployment: Deployment; onClose: () => void }) {
  const kept = useFleetBundle();
  const upload = useUploadFleetBundle();
  const start = useStartRollingUpgrade();
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [missing, setMissing] = useState<string | undefined>();
  const names = deployment.plan.fleet?.appliances.map((a) => a.name) ?? [];
  const job = start.data;

  const begin = () => {
    if (!password) return setMissing("Enter the appliances' admin password");
    setMissing(undefined);
    start.mutate({ deployment: deployment.id, password });
  };

  return (
    <CdsModal aria-labelledby="roll-title" size="lg" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="roll-title" cds-text="title">
          Upgrade the appliances of {deployment.name}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <div className="destroy-form">
          <p>
            The bundle is staged on all {names.length} appliances first: one that refuses it stops the upgrade before any is
            applied. Then one appliance at a time is upgraded and must answer as the new release with its pools ONLINE and its
            exports active before the next: its NFS and iSCSI keep serving while its api restarts. The first that fails stops
            the upgrade; the others stay on the release they run.
          </p>
          {kept.isPending && <Loading label="Reading the kept bundle" />}
          {kept.isSuccess && (
            <p data-testid="kept-bundle">
              {kept.data ? (
                <>
                  Bundle kept on the manager: <strong>{kept.data.version}</strong> (release {kept.data.release},{' '}
                  {formatBytes(kept.data.payload_bytes)})
                </>
              ) : (
                'No bundle is kept on the manager yet: upload the arcvsa-<version>.upgrade file of the release to roll out.'
              )}
            </p>
          )}
          {!job && (
            <div className="form-row">
              <label>
                Upgrade bundle{' '}
                <input type="file" accept=".upgrade" onChange={(e) => setFile(e.target.files?.[0] ?? null)} disabled={upload.isPending} data-testid="roll-bundle-file" />
              </label>
              <CdsButton size="sm" action="outline" onClick={() => file && upload.mutate(file)} disabled={!file || upload.isPending} loadingState={upload.isPending ? 'loading' : 'default'}>
                Upload
              </CdsButton>
            </div>
          )}
          {upload.isError && <FormAlert>The bundle was refused: {messageOf(upload.error)}</FormAlert>}
          {!job && kept.data && (
            <TextField label="Appliances' admin password" name="roll-password" type="password" value={password} onChange={setPassword} error={missing} autoComplete="off" hint="The admin password the appliances were deployed with; it is not kept." />
          )}
          {start.isError && <FormAlert>{messageOf(start.error)}</FormAlert>}
          {job && (
            <>
              <JobProgress jobId={job.id} inDialog />
              <ApplianceProgress jobId={job.id} names={names} />
            </>
          )}
        </div>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose}>
            Close
          </CdsButton>
          {!job && (
            <CdsButton onClick={begin} disabled={!kept.data || start.isPending} loadingState={start.isPending ? 'loading' : 'default'}>
              Upgrade {names.length} {names.length === 1 ? 'appliance' : 'appliances'}
            </CdsButton>
          )}
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
