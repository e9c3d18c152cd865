import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { components } from './schema';

export type FleetView = components['schemas']['FleetView'];
export type FleetDeployment = components['schemas']['FleetDeployment'];
export type FleetAppliance = components['schemas']['FleetAppliance'];
export type FleetFigures = components['schemas']['FleetFigures'];
export type FleetPoint = components['schemas']['FleetPoint'];

/**
 * Every appliance's figures over the last ``minutes``, read again every 30 s while the page is shown. The
 * manager keeps one session per appliance, so a read costs each appliance a few snapshot reads, no login.
 */
export function useFleet(minutes: number) {
  return useQuery({
    queryKey: ['fleet', minutes],
    queryFn: () => call(api.GET('/api/fleet', { params: { query: { minutes } } })),
    refetchInterval: (query) => (query.state.status === 'error' ? false : 30_000),
    placeholderData: (previous) => previous,
    retry: false,
  });
}
