import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { components } from './schema';

type S = components['schemas'];
export type Offers = S['Offers'];
export type OvaFile = S['OvaFile'];
export type StandIn = S['StandIn'];

/** The OVAs found on the machine running arcvsa and the lab appliances standing in for appliance VMs.
 * While the demo's lab appliance is still booting, ask again until it is offered. */
export function useOffers() {
  return useQuery({
    queryKey: ['wizard', 'offers'] as const,
    queryFn: () => call(api.GET('/api/wizard/offers')),
    refetchInterval: (query) => (query.state.data?.stand_ins_pending ? 5000 : false),
  });
}
