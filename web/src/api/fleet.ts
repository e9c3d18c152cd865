import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { rawBody, saveFile } from './download';
import { call } from './errors';
import type { components } from './schema';

export type FleetView = components['schemas']['FleetView'];
export type FleetDeployment = components['schemas']['FleetDeployment'];
export type FleetAppliance = components['schemas']['FleetAppliance'];
export type FleetFigures = components['schemas']['FleetFigures'];
export type FleetPoint = components['schemas']['FleetPoint'];
export type FleetBackup = components['schemas']['FleetBackup'];
export type FleetBackupItem = components['schemas']['FleetBackupItem'];

const backupsKey = ['fleet', 'backups'] as const;

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

/** The fleet backups the manager keeps, newest first. */
export function useFleetBackups() {
  return useQuery({ queryKey: backupsKey, queryFn: () => call(api.GET('/api/fleet/backups')) });
}

/** Back up every appliance under one passphrase; the manager keeps the archive. */
export function useMakeFleetBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (passphrase: string) => call(api.POST('/api/fleet/backups', { body: { passphrase } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: backupsKey }),
  });
}

/** Save one kept archive through the browser. */
export function useDownloadFleetBackup() {
  return useMutation({
    mutationFn: async (name: string) => {
      const blob = await call(api.GET('/api/fleet/backups/{name}', { params: { path: { name } }, parseAs: 'blob' }));
      saveFile(blob as Blob, name);
      return name;
    },
  });
}

export type FleetRelease = components['schemas']['Release'];
const bundleKey = ['fleet', 'bundle'] as const;

/** The upgrade bundle kept on the manager for rolling upgrades, or null when none is. */
export function useFleetBundle() {
  return useQuery({
    queryKey: bundleKey,
    queryFn: async () => {
      const result = await api.GET('/api/fleet/bundle');
      if (result.response.status === 404) return null;
      return call(Promise.resolve(result));
    },
  });
}

/** Keep a bundle on the manager (its signature checked first) in place of the one kept. */
export function useUploadFleetBundle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) =>
      call(
        api.PUT('/api/fleet/bundle', rawBody(file)),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: bundleKey }),
  });
}

/** Start a rolling upgrade of one deployment's appliances with the kept bundle. */
export function useStartRollingUpgrade() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deployment, password }: { deployment: number; password: string }) =>
      call(
        api.POST('/api/deployments/{deployment_id}/upgrade', {
          params: { path: { deployment_id: deployment } },
          body: { admin_password: password },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}
