import type { Job } from '../../api/jobs';

/** What failed and why (the next run retries them). */
export function DeployFailures({ job }: { job: Job }) {
  if (!job.failures.length) return null;
  return (
    <section className="deploy-failures" aria-labelledby="deploy-failures-title">
      <h3 id="deploy-failures-title" cds-text="subsection">
        Failed ({job.failures.length})
      </h3>
      <ul data-testid="deploy-failures">
        {job.failures.map((f) => (
          <li key={f.object}>
            <strong className="mono">{f.object}</strong>: {f.reason}
          </li>
        ))}
      </ul>
      <p className="muted">Resume runs the job again: it makes only what is still missing and retries what failed.</p>
    </section>
  );
}
