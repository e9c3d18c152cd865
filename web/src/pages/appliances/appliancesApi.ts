import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { call } from '../../api/errors';
import type { components } from '../../api/schema';

export type ApplianceStatus = components['schemas']['ApplianceStatus'];
export type ApplianceInfo = components['schemas']['ApplianceInfo'];

/**
 * Each appliance of a deployment as its own api reports it; read again every 2 minutes while the page is
 * shown (each read logs in to every appliance: a password hash and a session there), else on Refresh.
 */
export function useDeploymentAppliances(id: number) {
  return useQuery({
    queryKey: ['deployments', id, 'appliances'],
    queryFn: () =>
      call(api.GET('/api/deployments/{deployment_id}/appliances', { params: { path: { deployment_id: id } } })),
    refetchInterval: 120_000,
    retry: false,
  });
}

/** The machine this api runs on: its build (none off an appliance), role and first boot. */
export function useThisAppliance() {
  return useQuery({ queryKey: ['appliance'], queryFn: () => call(api.GET('/api/appliance')), staleTime: 60_000 });
}
