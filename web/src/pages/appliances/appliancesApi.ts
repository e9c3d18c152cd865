import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { call } from '../../api/errors';
import type { components } from '../../api/schema';

export type ApplianceStatus = components['schemas']['ApplianceStatus'];
export type ApplianceInfo = components['schemas']['ApplianceInfo'];

/** Each appliance of a deployment as its own api reports it; read again every 30 s. */
export function useDeploymentAppliances(id: number) {
  return useQuery({
    queryKey: ['deployments', id, 'appliances'],
    queryFn: () =>
      call(api.GET('/api/deployments/{deployment_id}/appliances', { params: { path: { deployment_id: id } } })),
    refetchInterval: 30_000,
    retry: false,
  });
}

/** The machine this api runs on: its build (none off an appliance), role and first boot. */
export function useThisAppliance() {
  return useQuery({ queryKey: ['appliance'], queryFn: () => call(api.GET('/api/appliance')), staleTime: 60_000 });
}
