import { CdsButton } from '@cds/react/button';
import { finished, useCancelJob, useJob, useResumeJob } from '../../api/jobs';
import { messageOf } from '../../api/errors';
import { JobState } from './JobState';
import { SecretAsk, SecretDialog } from './SecretAsk';
import { shownError, useSecretAsk } from './secrets';

const KIND_WORDS = { apply: 'Apply', destroy: 'Destroy', upgrade: 'Upgrade' } as const;

/**
 * One job followed live (read again every second until it ends): progress, outcome, failures, resume. A
 * resume that needs a password asks for it (in a dialog, or in place when `inDialog`: one is open already).
 */
export function JobProgress({ jobId, inDialog = false }: { jobId: number; inDialog?: boolean }) {
  const job = useJob(jobId);
  const resume = useResumeJob();
  const cancel = useCancelJob();
  const secrets = useSecretAsk();
  if (!job.data) {
    return job.isError ? <p className="text-danger">The job could not be read: {messageOf(job.error)}</p> : null;
  }
  const j = job.data;
  const running = !finished(j);
  const label = `${KIND_WORDS[j.kind]} job ${j.id}`;
  return (
    <div className="job-progress" data-testid="job-progress" data-job={j.id} data-state={j.state} aria-live="polite">
      <div className="section-head">
        <JobState job={j} />
        <span className="muted small">
          {j.done} of {j.total || '?'} {j.kind === 'upgrade' ? 'appliances' : 'objects'}{j.runs > 1 ? ` · run ${j.runs}` : ''}
        </span>
        <div className="section-actions">
          {running && (
            <CdsButton size="sm" action="outline" onClick={() => cancel.mutate(j.id)} disabled={cancel.isPending || j.cancel_requested}>
              {j.cancel_requested ? 'Cancelling' : 'Cancel'}
            </CdsButton>
          )}
          {(j.state === 'failed' || j.state === 'cancelled') && (
            <CdsButton
              size="sm"
              onClick={() => secrets.run((given, refused) => resume.mutate({ id: j.id, secrets: given }, { onError: refused }))}
              disabled={resume.isPending || secrets.ask !== null}
              aria-label={`Resume ${label}`}
            >
              Resume
            </CdsButton>
          )}
        </div>
      </div>
      {running && <progress aria-label={`${label} progress`} max={j.total || 1} value={j.done} style={{ width: '100%' }} />}
      {j.message && <p className={j.state === 'failed' ? 'text-danger' : 'muted small'}>{j.message}</p>}
      {j.failures.length > 0 && (
        <ul className="doomed-list" data-testid="job-failures">
          {j.failures.map((f) => (
            <li key={f.object}>
              <code>{f.object}</code>: {f.reason}
            </li>
          ))}
        </ul>
      )}
      {secrets.ask && inDialog && <SecretAsk key={secrets.ask.field} ask={secrets.ask} />}
      {!inDialog && <SecretDialog ask={secrets.ask} />}
      {(shownError(resume.error) ?? cancel.error) !== null && (
        <p className="text-danger" role="alert">
          {messageOf(shownError(resume.error) ?? cancel.error)}
        </p>
      )}
    </div>
  );
}
