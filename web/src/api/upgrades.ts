import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { rawBody } from './download';
import { ApiError, call } from './errors';
import type { components } from './schema';

type S = components['schemas'];
export type UpgradeStatus = S['UpgradeStatus'];
export type Release = S['Release'];
export type UpgradeRun = S['Run'];
export type UpgradeState = UpgradeRun['state'];

const upgradesKey = ['upgrades'] as const;
/** How often a running upgrade is read again. */
export const POLL_MS = 3000;
/** The run is still going (the api decides: a working state that moved within the last hour). */
export function isInProgress(run: UpgradeRun | null | undefined): boolean {
  return run?.in_progress ?? false;
}

/** No answer, or the answer of a server that is stopping or starting: what the api's restart looks like. */
export function isRestarting(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 0 || error.status >= 500);
}

/**
 * The releases, the staged bundle and the last run. While a run is in progress it is read every 3 s; the
 * api stops and comes back as the new release meanwhile, so a failed read keeps the last answer and the
 * next poll is its retry.
 */
export function useUpgrades() {
  return useQuery({
    queryKey: upgradesKey,
    queryFn: () => call(api.GET('/api/upgrades')),
    refetchInterval: (query) => (isInProgress(query.state.data?.last) ? POLL_MS : false),
    retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
  });
}

/** Upload a bundle file as the raw body; the api verifies it and stages it in place of any staged one. */
export function useUploadBundle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) =>
      call(
        api.PUT('/api/upgrades/bundle', rawBody(file)),
      ),
    // A refused file unstages whatever was staged before: read the status again either way.
    onSettled: () => queryClient.invalidateQueries({ queryKey: upgradesKey }),
  });
}

export function useDiscardBundle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.DELETE('/api/upgrades/bundle')),
    onSettled: () => queryClient.invalidateQueries({ queryKey: upgradesKey }),
  });
}

/** Start the upgrade to the staged bundle; the run it answers with starts the polling. */
export function useApplyUpgrade() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.POST('/api/upgrades/apply')),
    onSuccess: (run) =>
      queryClient.setQueryData<UpgradeStatus>(upgradesKey, (old) => (old ? { ...old, last: run } : old)),
    onError: () => queryClient.invalidateQueries({ queryKey: upgradesKey }),
  });
}
