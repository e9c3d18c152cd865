import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { saveFile } from './download';
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
