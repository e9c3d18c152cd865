import { useApplyDeployment, type JobSecrets } from '../../api/deployments';
import type { Job } from '../../api/jobs';
import { shownError, useSecretAsk } from '../pools/secrets';
import type { Draft } from './draft';

/** The passwords typed in this wizard session for the draft's first job (empty after a reload). */
function typed(draft: Draft): JobSecrets {
  const secrets: JobSecrets = {};
  if (draft.hosts.length && draft.backend.adminPassword) secrets.admin_password = draft.backend.adminPassword;
  if (draft.desktops.horizon?.password) secrets.horizon_password = draft.desktops.horizon.password;
  return secrets;
}

/** The draft once its passwords went with a job: a later job of it asks for them again. */
function spent(d: Draft): Draft {
  const horizon = d.desktops.horizon && { ...d.desktops.horizon, password: '' };
  return { ...d, backend: { ...d.backend, adminPassword: '' }, desktops: { ...d.desktops, horizon } };
}

/**
 * Start the draft's deployment: the first job gets the passwords typed in the wizard, once; any password it
 * still needs (after a reload, or for a retry) is asked for (`ask`), never taken from an earlier job.
 */
export function useStartDeploy(draft: Draft, update: (change: (d: Draft) => Draft) => void) {
  const apply = useApplyDeployment();
  const secrets = useSecretAsk();
  const start = (deploymentId: number, onStarted: (job: Job) => void) => {
    const first = draft.jobId === null ? typed(draft) : {};
    secrets.run((given, refused) =>
      apply.mutate(
        { id: deploymentId, secrets: { ...first, ...given } },
        {
          onSuccess: (job) => {
            update((d) => ({ ...spent(d), jobId: job.id }));
            onStarted(job);
          },
          onError: refused,
        },
      ),
    );
  };
  return { start, ask: secrets.ask, pending: apply.isPending || secrets.ask !== null, error: shownError(apply.error) };
}
