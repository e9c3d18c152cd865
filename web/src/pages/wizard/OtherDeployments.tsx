import { Link } from 'react-router';
import { useDeployments } from '../../api/deployments';
import { finished, useAllJobs } from '../../api/jobs';

/** The other deployments' jobs still running: they go on beside the wizard; Desktop pools follows each. */
export function OtherDeployments({ current }: { current: number | null }) {
  const jobs = useAllJobs();
  const deployments = useDeployments();
  const running = (jobs.data ?? []).filter((j) => !finished(j) && j.deployment_id !== current);
  if (running.length === 0) return null;
  const nameOf = (id: number) => deployments.data?.find((d) => d.id === id)?.name ?? `deployment ${id}`;
  return (
    <section className="other-deployments" aria-labelledby="other-deployments-title" data-testid="other-deployments">
      <h3 id="other-deployments-title" cds-text="subsection">
        Also running
      </h3>
      <ul>
        {running.map((j) => (
          <li key={j.id} data-testid="other-deployment" data-deployment={nameOf(j.deployment_id)} data-state={j.state}>
            {nameOf(j.deployment_id)}: {j.kind} job {j.id} {j.state}, {j.done} of {j.total || '?'} objects
          </li>
        ))}
      </ul>
      <p className="muted small">
        <Link to="/pools">Desktop pools</Link> follows each of them live.
      </p>
    </section>
  );
}
