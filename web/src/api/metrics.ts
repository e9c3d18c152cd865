import { useQuery } from '@tanstack/react-query';
import { useStorageScope } from './scope';
import { call } from './errors';
import type { paths } from './schema';
import { retryUnreachable } from './storage';

type Series = paths['/api/storage/metrics']['get']['responses'][200]['content']['application/json'];
export type MetricPoint = Series['points'][number];
export type MetricsSummary = paths['/api/storage/metrics/summary']['get']['responses'][200]['content']['application/json'];
export type ExportCard = MetricsSummary['exports'][number];

const DEFAULT_INTERVAL_MS = 10_000;

/** Rates per sampling interval over the last ``minutes``; read again every interval. */
export function useMetrics(minutes: number) {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, 'storage', 'metrics', minutes],
    queryFn: () => call(client.GET('/api/storage/metrics', { params: { query: { minutes } } })),
    refetchInterval: (query) => {
      const seconds = query.state.data?.interval_seconds;
      return query.state.status === 'error' ? false : seconds ? seconds * 1000 : DEFAULT_INTERVAL_MS;
    },
    placeholderData: (previous) => previous,
    retry: retryUnreachable,
  });
}

/** The latest sample: a card per datastore and the ARC now. */
export function useMetricsSummary() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, 'storage', 'metrics', 'summary'],
    queryFn: () => call(client.GET('/api/storage/metrics/summary')),
    refetchInterval: (query) => (query.state.status === 'error' ? false : DEFAULT_INTERVAL_MS),
    retry: retryUnreachable,
  });
}
