import type { Job } from '../../api/jobs';
import { humanize } from '../../format';
import { jobLevel } from './poolModel';

/** A job's state as a coloured dot and words: 'Apply succeeded', 'Destroy running' ... */
export function JobState({ job }: { job: Job | undefined }) {
  const level = jobLevel(job);
  return (
    <span className={`state state-${level}`} data-testid="job-state" data-state={job?.state ?? 'none'} data-job={job?.id ?? ''}>
      <span className="state-dot" aria-hidden="true" />
      {job ? `${humanize(job.kind)} ${job.state}` : 'Not applied yet'}
    </span>
  );
}
