import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { components } from './schema';

export type Deployment = components['schemas']['DeploymentOut'];
export type DeploymentPlan = components['schemas']['DeploymentPlan'];
export type PlanOut = components['schemas']['PlanOut'];
/** The secrets one job needs, given with the request that starts it (the api keeps none for jobs). */
export type JobSecrets = components['schemas']['JobSecrets'];

export const deploymentsKey = ['deployments'] as const;
const deploymentKey = (id: number) => ['deployments', id] as const;
const byId = (id: number) => ({ params: { path: { deployment_id: id } } });

export function useDeployments() {
  return useQuery({ queryKey: deploymentsKey, queryFn: () => call(api.GET('/api/deployments')) });
}

export function useDeployment(id: number | null) {
  return useQuery({
    queryKey: deploymentKey(id ?? 0),
    queryFn: () => call(api.GET('/api/deployments/{deployment_id}', byId(id ?? 0))),
    enabled: id !== null,
  });
}

/** Store a plan (nothing changes in vCenter yet). */
export function useCreateDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { vcenter_id: number; plan: DeploymentPlan }) =>
      call(api.POST('/api/deployments', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deploymentsKey }),
  });
}

/** Change a stored plan: count to grow or shrink, snapshot to recompose; the next apply makes it so. */
export function useUpdateDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, plan }: { id: number; plan: DeploymentPlan }) =>
      call(api.PUT('/api/deployments/{deployment_id}', { ...byId(id), body: { plan } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deploymentsKey }),
  });
}

/** Forget a deployment (destroy it first: what it made stays in vCenter). */
export function useForgetDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/deployments/{deployment_id}', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deploymentsKey }),
  });
}

/** The diff against vCenter: every object apply would create, change or remove. Changes nothing. */
export function usePlanDeployment() {
  return useMutation({
    mutationFn: (id: number) => call(api.POST('/api/deployments/{deployment_id}/plan', byId(id))),
  });
}

/** Start an apply job; follow it with useJob / useJobEvents. A 422 secret_required names a secret to ask for. */
export function useApplyDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, secrets = {} }: { id: number; secrets?: JobSecrets }) =>
      call(api.POST('/api/deployments/{deployment_id}/apply', { ...byId(id), body: secrets })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}

/** Start a destroy job: removes every object this deployment made, and nothing else. */
export function useDestroyDeployment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, secrets = {} }: { id: number; secrets?: JobSecrets }) =>
      call(api.POST('/api/deployments/{deployment_id}/destroy', { ...byId(id), body: secrets })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}
