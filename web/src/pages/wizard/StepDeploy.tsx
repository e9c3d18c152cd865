import { CdsButton } from '@cds/react/button';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useApplyDeployment } from '../../api/deployments';
import { messageOf } from '../../api/errors';
import { useJobStream } from '../../api/jobStream';
import { finished, useCancelJob, useResumeJob } from '../../api/jobs';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { DeployActivity } from './DeployActivity';
import { DeployFailures } from './DeployFailures';
import { objectRows, phases, upload } from './deployModel';
import { DeployObjects } from './DeployObjects';
import { DeployProgress } from './DeployProgress';
import { EMPTY, type StepProps } from './draft';
import './Deploy.css';

/** Step 7: the apply job, live (server-sent events), with cancel, resume and its failures. Reload-safe: draft.jobId. */
export function StepDeploy({ draft, update, back }: StepProps) {
  const [generation, setGeneration] = useState(0);
  const { job, events, error } = useJobStream(draft.jobId, generation);
  const cancel = useCancelJob();
  const resume = useResumeJob();
  const apply = useApplyDeployment();
  const navigate = useNavigate();
  const rows = useMemo(() => objectRows(draft, events), [draft, events]);
  const failure = cancel.error ?? resume.error ?? apply.error;

  const start = () =>
    draft.deploymentId !== null && apply.mutate(draft.deploymentId, { onSuccess: (j) => update((d) => ({ ...d, jobId: j.id })) });
  const startOver = () => {
    update(() => EMPTY);
    void navigate('/deploy/vcenter');
  };

  if (draft.jobId === null) {
    return (
      <>
        {failure && <FormAlert>{messageOf(failure)}</FormAlert>}
        <p>Nothing is deploying for this draft yet.</p>
        <div className="form-actions">
          <CdsButton action="outline" onClick={back}>
            Back to review
          </CdsButton>
          <CdsButton onClick={start} disabled={draft.deploymentId === null || apply.isPending}>
            Deploy
          </CdsButton>
        </div>
      </>
    );
  }
  if (!job && error) return <ErrorState title={`Could not follow job ${draft.jobId}`} error={error} />;
  if (!job) return <Loading label="Connecting to the deployment job" />;

  const running = !finished(job);
  return (
    <div className="wizard-deploy">
      {failure && <FormAlert>{messageOf(failure)}</FormAlert>}
      <DeployProgress job={job} phases={phases(draft, rows)} upload={upload(events)} />
      <DeployFailures job={job} />
      <DeployObjects rows={rows} jobState={job.state} />
      <DeployActivity events={events} />
      <div className="form-actions">
        {running && (
          <CdsButton status="danger" action="outline" onClick={() => cancel.mutate(job.id)} disabled={job.cancel_requested || cancel.isPending}>
            {job.cancel_requested ? 'Cancelling…' : 'Cancel'}
          </CdsButton>
        )}
        {(job.state === 'failed' || job.state === 'cancelled') && (
          <>
            <CdsButton onClick={() => resume.mutate(job.id, { onSuccess: () => setGeneration((g) => g + 1) })} disabled={resume.isPending}>
              Resume
            </CdsButton>
            <CdsButton action="outline" onClick={back}>
              Back to review
            </CdsButton>
          </>
        )}
        {job.state === 'succeeded' && (
          <>
            <CdsButton onClick={() => void navigate('/pools')}>Open desktop pools</CdsButton>
            <CdsButton action="outline" onClick={startOver}>
              Deploy another pool
            </CdsButton>
          </>
        )}
      </div>
    </div>
  );
}
