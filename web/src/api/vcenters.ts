import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { call } from './errors';
import type { VCenterCreate } from './types';

export const vcentersKey = ['vcenters'] as const;
const inventoryKey = (id: number) => ['vcenters', id, 'inventory'] as const;

export function useVCenters() {
  return useQuery({ queryKey: vcentersKey, queryFn: () => call(api.GET('/api/vcenters')) });
}

/** Fetch the certificate a vCenter presents, so the user can decide whether to trust it. */
export function useFetchCertificate() {
  return useMutation({
    mutationFn: (body: { host: string; port: number }) => call(api.POST('/api/vcenters/certificate', { body })),
  });
}

/** Save a vCenter; the api logs in first and saves nothing when that fails. */
export function useCreateVCenter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: VCenterCreate) => call(api.POST('/api/vcenters', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: vcentersKey }),
  });
}

export function useTestVCenter() {
  return useMutation({
    mutationFn: (id: number) =>
      call(api.POST('/api/vcenters/{vcenter_id}/test', { params: { path: { vcenter_id: id } } })),
  });
}

export function useDeleteVCenter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      call(api.DELETE('/api/vcenters/{vcenter_id}', { params: { path: { vcenter_id: id } } })),
    onSuccess: (_, id) => {
      queryClient.removeQueries({ queryKey: inventoryKey(id) });
      return queryClient.invalidateQueries({ queryKey: vcentersKey });
    },
  });
}

export function useInventory(id: number) {
  return useQuery({
    queryKey: inventoryKey(id),
    queryFn: () =>
      call(api.GET('/api/vcenters/{vcenter_id}/inventory', { params: { path: { vcenter_id: id } } })),
    staleTime: 60_000,
    retry: false,
  });
}

/** The connected ESXi hosts of a vCenter with the VMkernel addresses an NFS export for them allows. */
export function useNfsClients(id: number | null) {
  return useQuery({
    queryKey: ['vcenters', id, 'nfs-clients'] as const,
    queryFn: () =>
      call(api.GET('/api/vcenters/{vcenter_id}/nfs-clients', { params: { path: { vcenter_id: id ?? 0 } } })),
    enabled: id !== null,
    staleTime: 60_000,
    retry: false,
  });
}
