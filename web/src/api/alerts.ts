import { useQuery } from '@tanstack/react-query';
import { useStorageScope } from './scope';
import { call } from './errors';
import type { paths } from './schema';
import { retryUnreachable } from './storage';

export type Alert = paths['/api/alerts']['get']['responses'][200]['content']['application/json'][number];

const INTERVAL_MS = 15_000;

/** What needs attention now (a suspended or degraded pool, a failing LUN); read again every 15 s. */
export function useAlerts() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, 'alerts'],
    queryFn: () => call(client.GET('/api/alerts')),
    refetchInterval: INTERVAL_MS,
    retry: retryUnreachable,
  });
}
