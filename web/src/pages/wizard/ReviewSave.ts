import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { deploymentsKey, type Deployment, type DeploymentPlan, type PlanOut } from '../../api/deployments';
import { ApiError, toApiError } from '../../api/errors';
import type { Draft } from './draft';
import { overKept } from './fromPlan';
import { toPlan } from './plan';

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Like `call`, but a refused plan names the whole dotted path ('pool.count', 'fleet.appliances.0.host'):
 * FastAPI's validation answer keeps it in `errors[0].loc`, the api's `field` only its first part.
 */
async function send<T>(request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    throw new ApiError(0, { detail: 'Cannot reach the arcvsa api. Check the network and try again.' });
  }
  if (answer.response.ok) return answer.data as T;
  const error = toApiError(answer.response.status, answer.error);
  const loc = (answer.error as { errors?: { loc?: unknown[] }[] } | undefined)?.errors?.[0]?.loc;
  if (Array.isArray(loc) && loc[0] === 'body' && loc[1] === 'plan') {
    const field = loc.slice(2).map(String).join('.');
    throw new ApiError(error.status, { detail: error.message, code: error.code, field: field || 'plan' });
  }
  throw error;
}

/**
 * The plan to store: never with a password (a job gets the ones it needs with its own request). A plan
 * brought back from Desktop pools without appliances stays so: its desktops go on a datastore there is.
 */
function planOf(draft: Draft): DeploymentPlan {
  const { fleet, nfs, ...rest } = overKept(toPlan(draft), draft.kept);
  const plan: DeploymentPlan = draft.hosts.length === 0 ? rest : { ...rest, fleet, nfs };
  if (plan.fleet) plan.fleet = { ...plan.fleet, admin_password: null };
  if (plan.horizon) plan.horizon = { ...plan.horizon, password: null };
  return plan;
}

/**
 * Store the draft as a deployment, then diff it against vCenter. The draft's deployment is changed in place;
 * under another name it is another deployment (a name is recorded on its objects): stored afresh, the old one
 * left as it is (forgotten only if no job ever ran for it), so a deployment still running is never in the way.
 */
export function useSaveAndPlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ draft, onSaved }: { draft: Draft; onSaved: (id: number) => void }): Promise<{ deployment: Deployment; diff: PlanOut }> => {
      const plan = planOf(draft);
      let deployment: Deployment | null = null;
      if (draft.deploymentId !== null) {
        const byId = { params: { path: { deployment_id: draft.deploymentId } } };
        try {
          deployment = await send(api.PUT('/api/deployments/{deployment_id}', { ...byId, body: { plan } }));
        } catch (error) {
          const renamed = error instanceof ApiError && error.status === 409 && error.field === 'plan.name';
          const gone = error instanceof ApiError && error.status === 404;
          if (!renamed && !gone) throw error;
          const jobs = renamed ? await send(api.GET('/api/jobs', { params: { query: { deployment_id: draft.deploymentId } } })) : [];
          if (renamed && jobs.length === 0) await send(api.DELETE('/api/deployments/{deployment_id}', byId));
        }
      }
      deployment ??= await send(api.POST('/api/deployments', { body: { vcenter_id: draft.vcenterId ?? 0, plan } }));
      onSaved(deployment.id);
      await queryClient.invalidateQueries({ queryKey: deploymentsKey });
      const id = { params: { path: { deployment_id: deployment.id } } };
      return { deployment, diff: await send(api.POST('/api/deployments/{deployment_id}/plan', id)) };
    },
  });
}
