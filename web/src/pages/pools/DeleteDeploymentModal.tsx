import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, useEffect, useState } from 'react';
import { type Deployment, useDestroyDeployment, useForgetDeployment } from '../../api/deployments';
import { messageOf } from '../../api/errors';
import { useJob } from '../../api/jobs';
import { TextField } from '../../components/TextField';
import { DoomedObjects } from './DoomedObjects';
import { JobProgress } from './JobProgress';
import { confirmName } from './poolModel';
import { SecretAsk } from './SecretAsk';
import { shownError, useSecretAsk } from './secrets';

/**
 * Delete a deployment: it lists what goes, asks for the pool's name typed out, runs the destroy job here
 * and forgets the deployment once the job succeeded.
 */
export function DeleteDeploymentModal({ deployment, onClose }: { deployment: Deployment; onClose: () => void }) {
  const name = confirmName(deployment);
  const [typed, setTyped] = useState('');
  const [jobId, setJobId] = useState<number | null>(null);
  const destroy = useDestroyDeployment();
  const secrets = useSecretAsk();
  const forget = useForgetDeployment();
  const job = useJob(jobId);
  const succeeded = job.data?.state === 'succeeded';
  const { mutate: forgetNow, isIdle } = forget;

  useEffect(() => {
    if (succeeded && isIdle) forgetNow(deployment.id, { onSuccess: onClose });
  }, [succeeded, isIdle, forgetNow, deployment.id, onClose]);

  const confirm = () => {
    if (typed !== name || jobId !== null) return;
    secrets.run((given, refused) =>
      destroy.mutate({ id: deployment.id, secrets: given }, { onSuccess: (j) => setJobId(j.id), onError: refused }),
    );
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm();
  };
  return (
    <CdsModal aria-labelledby="delete-deployment-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="delete-deployment-title" cds-text="title">
          Delete {name}?
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form className="destroy-form" onSubmit={submit} noValidate>
          <p>
            <strong>Every object deployment {deployment.name} made is removed</strong>: its desktops and what is on them, and
            the appliances and NFS datastore it deployed. Anything it did not make stays.
          </p>
          <DoomedObjects deployment={deployment} />
          {jobId === null ? (
            <TextField label={`Type ${name} to confirm`} name="confirm" value={typed} onChange={setTyped} autoComplete="off" />
          ) : (
            <JobProgress jobId={jobId} inDialog />
          )}
        </form>
        {secrets.ask && <SecretAsk key={secrets.ask.field} ask={secrets.ask} />}
        <form className="destroy-form" onSubmit={(event) => event.preventDefault()} noValidate>
          {succeeded && <p className="muted">Destroyed; forgetting the deployment…</p>}
          {(shownError(destroy.error) ?? forget.error) !== null && (
            <p className="text-danger" role="alert">
              {messageOf(shownError(destroy.error) ?? forget.error)}
            </p>
          )}
        </form>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose}>
            {jobId === null ? 'Cancel' : 'Close'}
          </CdsButton>
          {jobId === null && (
            <CdsButton
              status="danger"
              onClick={confirm}
              disabled={typed !== name || destroy.isPending || secrets.ask !== null}
              loadingState={destroy.isPending ? 'loading' : 'default'}
            >
              Delete {name}
            </CdsButton>
          )}
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
