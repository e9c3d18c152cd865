import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useStorageScope } from './scope';
import { call } from './errors';
import type { components } from './schema';

export type Calibration = components['schemas']['CalibrationOut'];
export type CalibrationCreate = components['schemas']['CalibrationCreate'];
export type DesktopProfile = components['schemas']['DesktopProfile'];
export type RampSpec = components['schemas']['RampSpec'];
export type RampStep = Calibration['steps'][number];
export type SanPhase = NonNullable<Calibration['san']>['phases'][number];

const calibrationsKey = ['calibrations'] as const;

/** Still queued or running: its figures are still coming. */
export function isRunning(c: Calibration): boolean {
  return c.state === 'queued' || c.state === 'running';
}

/** Every calibration, newest first; read again every 2 s while one runs, so its progress moves. */
export function useCalibrations() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...calibrationsKey],
    queryFn: () => call(client.GET('/api/calibrations')),
    refetchInterval: (query) => (query.state.data?.some(isRunning) ? 2000 : false),
  });
}

export function useStartCalibration() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CalibrationCreate) => call(client.POST('/api/calibrations', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...calibrationsKey] }),
  });
}

export function useCancelCalibration() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      call(client.POST('/api/calibrations/{calibration_id}/cancel', { params: { path: { calibration_id: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...calibrationsKey] }),
  });
}

export function useDeleteCalibration() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      call(client.DELETE('/api/calibrations/{calibration_id}', { params: { path: { calibration_id: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...calibrationsKey] }),
  });
}
