import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { call } from '../../api/errors';

/**
 * A saved vCenter's connection as it is now: the api logs in with the stored credentials and reads what
 * the endpoint is. Asked when a view shows the connection (a saved one is never just "not tested"), again
 * after a minute or on demand; under the vcenters key, so adding or deleting one asks again.
 */
export function useConnectionState(id: number) {
  return useQuery({
    queryKey: ['vcenters', id, 'connection'],
    queryFn: () => call(api.POST('/api/vcenters/{vcenter_id}/test', { params: { path: { vcenter_id: id } } })),
    staleTime: 60_000,
    retry: false,
  });
}
