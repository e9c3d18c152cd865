import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { call } from '../../api/errors';
import type { components } from '../../api/schema';

export type DeploymentInventory = components['schemas']['DeploymentInventory'];
export type PlanAction = components['schemas']['Action'];

/** A deployment's desktops in vCenter against its plan, and what destroy would remove (read-only). */
export function useDeploymentInventory(id: number, enabled = true) {
  return useQuery({
    queryKey: ['deployments', id, 'inventory'],
    queryFn: () =>
      call(api.GET('/api/deployments/{deployment_id}/inventory', { params: { path: { deployment_id: id } } })),
    enabled,
    retry: false,
    staleTime: 10_000,
  });
}
