import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { type Deployment, useForgetDeployment } from '../../api/deployments';
import { messageOf } from '../../api/errors';
import { finished, useJobs } from '../../api/jobs';
import { DeleteDeploymentModal } from './DeleteDeploymentModal';
import { useDeploymentInventory } from './fleetApi';
import { JobProgress } from './JobProgress';
import { JobState } from './JobState';
import { PoolFacts } from './PoolFacts';
import { RecomposeModal } from './RecomposeModal';
import { ResizeModal } from './ResizeModal';
import { saveDraft } from '../wizard/draft';
import { fromPlan } from '../wizard/fromPlan';

type Dialog = 'resize' | 'recompose' | 'delete' | null;

/** One deployment: its pool, where it lives, how its last job went, and what can be done to it. */
export function DeploymentCard({ deployment }: { deployment: Deployment }) {
  const pool = deployment.plan.pool;
  const title = pool?.name ?? deployment.name;
  const id = `deployment-${deployment.id}`;
  const jobs = useJobs(deployment.id);
  const latest = jobs.data?.[0];
  const busy = latest !== undefined && !finished(latest);
  const inventory = useDeploymentInventory(deployment.id);
  const forget = useForgetDeployment();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  const followed = () => void queryClient.invalidateQueries({ queryKey: ['jobs', 'of', deployment.id] });
  const destroyed = latest?.kind === 'destroy' && latest.state === 'succeeded';
  const stopped = latest === undefined || (latest.kind === 'apply' && (latest.state === 'failed' || latest.state === 'cancelled'));
  const navigate = useNavigate();
  // Back into the wizard with its plan, at Review: each step is a click away, the passwords asked again.
  const edit = () => {
    saveDraft(fromPlan(deployment, latest?.id ?? null));
    void navigate('/deploy/review');
  };

  // A job that ends changes what vCenter holds: ask again — on a change only, not when the jobs first
  // arrive (the inventory read is already under way then, and it is the slowest call of the page).
  const ended = latest ? `${latest.id}-${finished(latest)}` : '';
  const seen = useRef(ended);
  useEffect(() => {
    if (seen.current && ended !== seen.current) {
      void queryClient.invalidateQueries({ queryKey: ['deployments', deployment.id, 'inventory'] });
    }
    seen.current = ended || seen.current;
  }, [ended, deployment.id, queryClient]);

  return (
    <section className="card storage-section" aria-labelledby={`${id}-title`} data-testid="deployment-card" data-deployment={deployment.name}>
      <div className="section-head">
        <h2 id={`${id}-title`} cds-text="section">
          {title} {pool && <span className="muted small">deployment {deployment.name}</span>}
        </h2>
        <JobState job={latest} />
        <div className="section-actions">
          {pool && (
            <>
              <CdsButton size="sm" action="outline" onClick={() => setDialog('recompose')} disabled={busy} aria-label={`Recompose ${title}`}>
                Recompose
              </CdsButton>
              <CdsButton size="sm" action="outline" onClick={() => setDialog('resize')} disabled={busy} aria-label={`Grow or shrink ${title}`}>
                Grow or shrink
              </CdsButton>
            </>
          )}
          {stopped && (
            <CdsButton size="sm" action="outline" onClick={edit} aria-label={`Edit ${title} in the wizard`}>
              Edit
            </CdsButton>
          )}
          {destroyed ? (
            <CdsButton size="sm" action="outline" onClick={() => forget.mutate(deployment.id)} aria-label={`Forget ${title}`}>
              Forget
            </CdsButton>
          ) : (
            <CdsButton size="sm" action="outline" status="danger" onClick={() => setDialog('delete')} disabled={busy} aria-label={`Delete ${title}`}>
              <CdsIcon shape="trash" /> Delete
            </CdsButton>
          )}
        </div>
      </div>
      <PoolFacts deployment={deployment} inventory={inventory} />
      {jobs.isError && <p className="text-danger">Its jobs could not be read: {messageOf(jobs.error)}</p>}
      {forget.isError && <p className="text-danger" role="alert">{messageOf(forget.error)}</p>}
      {latest && latest.state !== 'succeeded' && <JobProgress jobId={latest.id} />}
      {latest?.state === 'succeeded' && (
        <p className="muted small" data-testid="last-job">
          Last {latest.kind} (job {latest.id}): {latest.message}
        </p>
      )}
      {dialog === 'resize' && pool && <ResizeModal deployment={deployment} pool={pool} onStarted={followed} onClose={close} />}
      {dialog === 'recompose' && pool && <RecomposeModal deployment={deployment} pool={pool} onStarted={followed} onClose={close} />}
      {dialog === 'delete' && <DeleteDeploymentModal deployment={deployment} onClose={close} />}
    </section>
  );
}
