import { CdsButton } from '@cds/react/button';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useDeployment, useDeployments } from '../../api/deployments';
import { ApiError, messageOf } from '../../api/errors';
import { useJobStream } from '../../api/jobStream';
import { finished, useCancelJob, useResumeJob } from '../../api/jobs';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { DeleteDeploymentModal } from '../pools/DeleteDeploymentModal';
import { SecretDialog } from '../pools/SecretAsk';
import { shownError, useSecretAsk } from '../pools/secrets';
import { DeployActivity } from './DeployActivity';
import { DeployFailures } from './DeployFailures';
import { objectRows, phases, upload } from './deployModel';
import { DeployObjects } from './DeployObjects';
import { DeployProgress } from './DeployProgress';
import { useStartDeploy } from './deployStart';
import { type StepProps } from './draft';
import { freshDraft } from './fromPlan';
import { OtherDeployments } from './OtherDeployments';
import './Deploy.css';

/**
 * Step 7: the draft's apply job, live (server-sent events), with cancel, and for a failed or cancelled one
 * resume, edit and destroy. Reload-safe: draft.jobId. "New deployment" plans another one beside it while it
 * runs: this job goes on, and Desktop pools (and the list here) keep following it.
 */
export function StepDeploy({ draft, update, back }: StepProps) {
  const [generation, setGeneration] = useState(0);
  const { job, events, error } = useJobStream(draft.jobId, generation);
  const cancel = useCancelJob();
  const resume = useResumeJob();
  const resumeSecrets = useSecretAsk();
  const apply = useStartDeploy(draft, update);
  const deployments = useDeployments();
  const deployment = useDeployment(draft.deploymentId);
  const [destroying, setDestroying] = useState(false);
  const navigate = useNavigate();
  const rows = useMemo(() => objectRows(draft, events), [draft, events]);
  const failure = cancel.error ?? shownError(resume.error) ?? apply.error;

  const start = () => draft.deploymentId !== null && apply.start(draft.deploymentId, () => undefined);
  const again = (jobId: number) =>
    resumeSecrets.run((given, refused) =>
      resume.mutate({ id: jobId, secrets: given }, { onSuccess: () => setGeneration((g) => g + 1), onError: refused }),
    );
  const startNew = () => {
    update((d) => freshDraft(d, deployments.data ?? []));
    void navigate(draft.vcenterId === null ? '/deploy/vcenter' : '/deploy/placement');
  };
  const newDeployment = (
    <CdsButton action="outline" onClick={startNew}>
      New deployment
    </CdsButton>
  );
  const dialogs = (
    <>
      <SecretDialog ask={apply.ask} />
      <SecretDialog ask={resumeSecrets.ask} />
      {destroying && deployment.data && (
        <DeleteDeploymentModal
          deployment={deployment.data}
          onClose={() => {
            setDestroying(false);
            // Destroyed and forgotten: nothing is left for this draft to follow.
            void deployment.refetch().then((r) => r.isError && startNew());
          }}
        />
      )}
    </>
  );

  if (draft.jobId === null) {
    return (
      <>
        {failure != null && <FormAlert>{messageOf(failure)}</FormAlert>}
        <p>Nothing is deploying for this draft yet.</p>
        <div className="form-actions">
          <CdsButton action="outline" onClick={back}>
            Back to review
          </CdsButton>
          <CdsButton onClick={start} disabled={draft.deploymentId === null || apply.pending}>
            Deploy
          </CdsButton>
        </div>
        <OtherDeployments current={draft.deploymentId} />
        {dialogs}
      </>
    );
  }
  if (!job && error) {
    // A deployment deleted from Desktop pools takes its jobs with it: this draft has nothing left to follow.
    const gone = error instanceof ApiError && error.status === 404;
    return (
      <>
        {gone ? (
          <p data-testid="job-gone">
            Job {draft.jobId} is gone: its deployment was deleted. Start a new deployment; the wizard keeps your vCenter and cluster.
          </p>
        ) : (
          <ErrorState title={`Could not follow job ${draft.jobId}`} error={error} />
        )}
        <div className="form-actions">{newDeployment}</div>
      </>
    );
  }
  if (!job) return <Loading label="Connecting to the deployment job" />;

  const running = !finished(job);
  const stopped = job.state === 'failed' || job.state === 'cancelled';
  return (
    <div className="wizard-deploy">
      {failure != null && <FormAlert>{messageOf(failure)}</FormAlert>}
      <DeployProgress job={job} phases={phases(draft, rows)} upload={upload(events)} />
      <DeployFailures job={job} />
      <DeployObjects rows={rows} jobState={job.state} />
      <DeployActivity events={events} />
      <div className="form-actions">
        {running && (
          <>
            <CdsButton status="danger" action="outline" onClick={() => cancel.mutate(job.id)} disabled={job.cancel_requested || cancel.isPending}>
              {job.cancel_requested ? 'Cancelling…' : 'Cancel'}
            </CdsButton>
            {newDeployment}
          </>
        )}
        {stopped && (
          <>
            <CdsButton onClick={() => again(job.id)} disabled={resume.isPending || resumeSecrets.ask !== null}>
              Resume
            </CdsButton>
            <CdsButton action="outline" onClick={back}>
              Edit the plan
            </CdsButton>
            <CdsButton action="outline" status="danger" onClick={() => setDestroying(true)} disabled={!deployment.data}>
              Destroy what it made
            </CdsButton>
            {newDeployment}
          </>
        )}
        {job.state === 'succeeded' && (
          <>
            <CdsButton onClick={() => void navigate('/pools')}>Open desktop pools</CdsButton>
            <CdsButton action="outline" onClick={startNew}>
              Deploy another pool
            </CdsButton>
          </>
        )}
      </div>
      {running && (
        <p className="muted small" data-testid="runs-on">
          This deployment goes on if you leave: Desktop pools follows it, and a new deployment can be planned and
          started beside it.
        </p>
      )}
      <OtherDeployments current={draft.deploymentId} />
      {dialogs}
    </div>
  );
}
