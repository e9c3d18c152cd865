import type { Job } from '../../api/jobs';
import { reasonWords } from './reasonWords';

/** What failed and why (the next run retries them). */
export function DeployFailures({ job }: { job: Job }) {
  if (!job.failures.length) return null;
  return (
    <section className="deploy-failures" aria-labelledby="deploy-failures-title">
      <h3 id="deploy-failures-title" cds-text="subsection">
        Failed ({job.failures.length})
      </h3>
      <ul data-testid="deploy-failures">
        {job.failures.map((f) => {
          const { kind, words } = reasonWords(f.object, f.reason);
          return (
            <li key={f.object} data-kind={kind ?? undefined}>
              <strong className="mono">{f.object}</strong>: {words}
            </li>
          );
        })}
      </ul>
      <p className="muted">Resume runs the job again: it makes only what is still missing and retries what failed.</p>
    </section>
  );
}
