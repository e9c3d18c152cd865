import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { deploymentsKey, type Deployment, type DeploymentPlan, type PlanOut } from '../../api/deployments';
import { ApiError, toApiError } from '../../api/errors';
import type { Draft } from './draft';
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

/** The plan to store: a secret left empty (not kept across a reload) keeps the one the api holds. */
function planOf(draft: Draft): DeploymentPlan {
  const plan = toPlan(draft);
  if (plan.fleet && !draft.backend.adminPassword) plan.fleet = { ...plan.fleet, admin_password: null };
  if (plan.horizon && !draft.desktops.horizon?.password) plan.horizon = { ...plan.horizon, password: null };
  return plan;
}

function missingSecret(draft: Draft): ApiError | null {
  if (draft.deploymentId !== null) return null;
  if (draft.hosts.length && !draft.backend.adminPassword) {
    return new ApiError(422, { detail: "Give the appliances' admin password again: it is never saved in the browser.", field: 'fleet.admin_password' });
  }
  if (draft.desktops.horizon && !draft.desktops.horizon.password) {
    return new ApiError(422, { detail: "Give the Horizon password again: it is never saved in the browser.", field: 'horizon.password' });
  }
  return null;
}

/** Store the draft as a deployment (create, or change the stored one), then diff it against vCenter. */
export function useSaveAndPlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ draft, onSaved }: { draft: Draft; onSaved: (id: number) => void }): Promise<{ deployment: Deployment; diff: PlanOut }> => {
      const missing = missingSecret(draft);
      if (missing) throw missing;
      const plan = planOf(draft);
      let deployment: Deployment | null = null;
      if (draft.deploymentId !== null) {
        const byId = { params: { path: { deployment_id: draft.deploymentId } } };
        try {
          deployment = await send(api.PUT('/api/deployments/{deployment_id}', { ...byId, body: { plan } }));
        } catch (error) {
          // Renamed before anything was deployed: store it afresh under the new name.
          const renamed = error instanceof ApiError && error.status === 409 && error.field === 'plan.name' && draft.jobId === null;
          const gone = error instanceof ApiError && error.status === 404;
          if (!renamed && !gone) throw error;
          // Stored afresh, it needs its secrets again (asked before the old one is forgotten).
          const secret = missingSecret({ ...draft, deploymentId: null });
          if (secret) throw secret;
          if (renamed) await send(api.DELETE('/api/deployments/{deployment_id}', byId));
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
