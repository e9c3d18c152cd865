import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { JobSecrets } from './deployments';
import type { components } from './schema';

export type Job = components['schemas']['JobOut'];
export type JobEvent = components['schemas']['JobEventOut'];

const jobsKey = ['jobs'] as const;
const byId = (id: number) => ({ params: { path: { job_id: id } } });
export const finished = (job: Job) => ['succeeded', 'failed', 'cancelled'].includes(job.state);

/** Jobs of a deployment (newest first), read again every 2 s while one is still running. */
export function useJobs(deploymentId: number | null) {
  return useQuery({
    queryKey: [...jobsKey, 'of', deploymentId],
    queryFn: () => call(api.GET('/api/jobs', { params: { query: { deployment_id: deploymentId ?? 0 } } })),
    enabled: deploymentId !== null,
    refetchInterval: (query) => (query.state.data?.some((j) => !finished(j)) ? 2000 : false),
  });
}

/** One job, read again every second until it finishes. */
export function useJob(id: number | null) {
  return useQuery({
    queryKey: [...jobsKey, id],
    queryFn: () => call(api.GET('/api/jobs/{job_id}', byId(id ?? 0))),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data && finished(query.state.data) ? false : 1000),
  });
}

export function useCancelJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.POST('/api/jobs/{job_id}/cancel', byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: jobsKey }),
  });
}

/** Run a failed or cancelled job again: it does only what is still missing. The secrets it needs come with
 * this request, never from its earlier run (a 422 secret_required names the one to ask for). */
export function useResumeJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, secrets = {} }: { id: number; secrets?: JobSecrets }) =>
      call(api.POST('/api/jobs/{job_id}/resume', { ...byId(id), body: secrets })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: jobsKey }),
  });
}

/** Every job (newest first), read again every 2 s while one is still running: what runs beside the wizard. */
export function useAllJobs() {
  return useQuery({
    queryKey: [...jobsKey, 'all'],
    queryFn: () => call(api.GET('/api/jobs')),
    refetchInterval: (query) => (query.state.data?.some((j) => !finished(j)) ? 2000 : 10_000),
  });
}
