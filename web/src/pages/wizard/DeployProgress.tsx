import type { Job } from '../../api/jobs';
import type { Phase } from './deployModel';

const STATES: Record<Job['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted (the api restarted; it resumes by itself)',
};

function phaseWords(p: Phase): string {
  const parts = [`${p.done}${p.planned !== null ? ` of ${p.planned}` : ''} done`];
  if (p.working) parts.push(`${p.working} in progress`);
  if (p.failed) parts.push(`${p.failed} failed`);
  return p.done + p.working + p.failed === 0 && p.planned === null ? 'nothing yet' : parts.join(', ');
}

/** The job's overall progress and one line per phase. */
export function DeployProgress({ job, phases, upload }: { job: Job; phases: Phase[]; upload: string | null }) {
  const percent = job.total ? Math.round((job.done * 100) / job.total) : job.state === 'succeeded' ? 100 : 0;
  return (
    <section className="deploy-progress" aria-label="Progress">
      <p>
        <strong data-testid="job-state" data-state={job.state}>
          {STATES[job.state]}
        </strong>{' '}
        <span className="muted">
          {job.done} of {job.total} objects{job.runs > 1 ? ` · run ${job.runs}` : ''}
        </span>
      </p>
      <progress className="deploy-bar" max={100} value={percent} aria-label={`Deployment ${percent} % done`} />
      {upload && job.state === 'running' && <p className="muted">{upload}</p>}
      <ol className="deploy-phases">
        {phases.map((p) => (
          <li key={p.id} data-phase={p.id} data-state={p.failed ? 'failed' : p.working ? 'working' : p.done ? 'done' : 'waiting'}>
            <span>{p.title}</span>: <span className="muted">{phaseWords(p)}</span>
          </li>
        ))}
      </ol>
      {job.message && <p className="muted" data-testid="job-message">{job.message}</p>}
    </section>
  );
}
