import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useStorageScope } from './scope';
import { ApiError, call } from './errors';
import type { paths } from './schema';

// Types come from the operations, not from schema names, so a page names what it sends and gets
// (tests/unit/test_openapi_schema_names.py keeps the schema names themselves plain).
type Ok<T> = T extends { responses: { 200: { content: { 'application/json': infer R } } } }
  ? R
  : T extends { responses: { 201: { content: { 'application/json': infer R } } } }
    ? R
    : never;
type Body<T> = T extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

export type Disk = Ok<paths['/api/storage/disks']['get']>[number];
export type ZfsPoolHealth = Ok<paths['/api/storage/pools']['get']>[number];
export type Vdev = ZfsPoolHealth['vdevs'][number];
export type ZfsPoolSpec = Body<paths['/api/storage/pools']['post']>;
export type ZfsPoolLayout = NonNullable<ZfsPoolSpec['layout']>;
export type Dataset = Ok<paths['/api/storage/pools/{name}/datasets']['get']>[number];
export type DatasetCreate = Body<paths['/api/storage/datasets']['post']>;
export type DesktopPoolType = DatasetCreate['profile'];
export type ZfsPoolGrow = Body<paths['/api/storage/pools/{name}/devices']['post']>;
export type ZfsPoolReplace = Body<paths['/api/storage/pools/{name}/replace']['post']>;
export type ImportableZfsPool = Ok<paths['/api/storage/imports']['get']>[number];
export type DatasetProperties = Body<paths['/api/storage/datasets/{name}']['patch']>['properties'];
export type StoragePresence = Ok<paths['/api/storage/presence']['get']>;

export const storageKey = ['storage'] as const;
const disksKey = ['storage', 'disks'] as const;
const poolsKey = ['storage', 'pools'] as const;
const importsKey = ['storage', 'imports'] as const;
const datasetsKey = (pool: string) => ['storage', 'pools', pool, 'datasets'] as const;

/**
 * A storage read is asked again only when the api could not be reached: a 502 from a missing tool or a
 * refused name will not change by asking again, and the page offers "Try again" anyway.
 */
export function retryUnreachable(count: number, error: unknown): boolean {
  return error instanceof ApiError && error.status === 0 && count < 2;
}

/**
 * Whether this machine has storage of its own: an appliance does, the fleet manager does not (its nav has
 * no Storage group, and a storage page says why instead of failing).
 */
export function useStoragePresence() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, 'storage', 'presence'],
    queryFn: () => call(client.GET('/api/storage/presence')),
    retry: retryUnreachable,
    staleTime: Infinity, // a machine's role does not change while the page is open
  });
}

export function useDisks() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...disksKey],
    queryFn: () => call(client.GET('/api/storage/disks')),
    retry: retryUnreachable,
  });
}

/** True while a scrub or resilver runs on the pool (zpool reports scan_stats.state SCANNING). */
export function isScanning(pool: ZfsPoolHealth): boolean {
  return String(pool.scan?.state ?? '').toUpperCase() === 'SCANNING';
}

export function usePools() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...poolsKey],
    queryFn: () => call(client.GET('/api/storage/pools')),
    retry: retryUnreachable,
    // A scrub or resilver runs in the background: read again until it ends so its progress moves.
    refetchInterval: (query) => (query.state.data?.some(isScanning) ? 5000 : false),
  });
}

/** Create a pool; disks and pools are read again (the disks it took are no longer free). */
export function useCreatePool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ZfsPoolSpec) => call(client.POST('/api/storage/pools', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

/** Destroy a pool and clear its disks' ZFS labels, so the next pool takes them without force. */
export function useDestroyPool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      call(client.DELETE('/api/storage/pools/{name}', { params: { path: { name }, query: { free_disks: true } } })),
    onSuccess: (_, name) => {
      queryClient.removeQueries({ queryKey: [...key, ...datasetsKey(name)] });
      return queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] });
    },
  });
}

const byName = (name: string) => ({ params: { path: { name } } });

/** Clear a disk's old labels (its name typed out confirms it); the disks are read again. */
export function useWipeDisk() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { path: string; confirm: string }) => call(client.POST('/api/storage/disks/wipe', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

/** Grow a pool by LUNs; disks and pools are read again (the LUNs it took are no longer free). */
export function useGrowPool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: ZfsPoolGrow }) =>
      call(client.POST('/api/storage/pools/{name}/devices', { ...byName(name), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

/** Replace a LUN by a free one; the resilver's progress comes with the pools (scan). */
export function useReplaceDisk() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: ZfsPoolReplace }) =>
      call(client.POST('/api/storage/pools/{name}/replace', { ...byName(name), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

export function useScrubPool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(client.POST('/api/storage/pools/{name}/scrub', byName(name))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

/** Export a pool: it leaves this appliance's lists (its datasets with it) until imported again. */
export function useExportPool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(client.POST('/api/storage/pools/{name}/export', byName(name))),
    onSuccess: (_, name) => {
      queryClient.removeQueries({ queryKey: [...key, ...datasetsKey(name)] });
      return queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] });
    },
  });
}

/** Pools on the LUNs that are not imported (zpool import's list), read afresh each time the form opens. */
export function useImportablePools() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...importsKey],
    queryFn: () => call(client.GET('/api/storage/imports')),
    retry: retryUnreachable,
    gcTime: 0, // dropped when the form closes: the next opening asks zpool again
  });
}

/** Import one pool by its id, under a new name if given (two pools can share a name; the id cannot). */
export function useImportPool() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name?: string }) =>
      call(
        client.POST('/api/storage/imports/{pool_id}', { params: { path: { pool_id: id } }, body: name ? { name } : {} }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...storageKey] }),
  });
}

export function useDatasets(pool: string | null) {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...datasetsKey(pool ?? '')],
    queryFn: () =>
      call(client.GET('/api/storage/pools/{name}/datasets', { params: { path: { name: pool ?? '' } } })),
    enabled: !!pool,
    retry: retryUnreachable,
  });
}

/** The datasets of every pool, for pickers (exports, zvols); pending while any pool is being read. */
export function useAllDatasets() {
  const { client, key } = useStorageScope();
  const pools = usePools();
  const names = pools.data?.map((p) => p.name) ?? [];
  return useQueries({
    queries: names.map((name) => ({
      queryKey: [...key, ...datasetsKey(name)],
      queryFn: () => call(client.GET('/api/storage/pools/{name}/datasets', { params: { path: { name } } })),
      retry: retryUnreachable,
    })),
    combine: (results) => ({
      data: results.flatMap((r) => r.data ?? []),
      isPending: pools.isPending || results.some((r) => r.isPending),
      error: pools.error ?? results.find((r) => r.error)?.error ?? null,
    }),
  });
}

export function useCreateDataset() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DatasetCreate) => call(client.POST('/api/storage/datasets', { body })),
    onSuccess: (dataset) =>
      queryClient.invalidateQueries({ queryKey: [...key, ...datasetsKey(dataset.name.split('/')[0] ?? '')] }),
  });
}

/** Change some properties of a dataset (quota, reservation, compression ...); the others stay. */
export function useUpdateDataset() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, properties }: { name: string; properties: DatasetProperties }) =>
      call(client.PATCH('/api/storage/datasets/{name}', { ...byName(name), body: { properties } })),
    onSuccess: (dataset) =>
      queryClient.invalidateQueries({ queryKey: [...key, ...datasetsKey(dataset.name.split('/')[0] ?? '')] }),
  });
}

// ---- NFS exports (the appliance runs one NFS server: ganesha or knfsd) ----

export type NfsState = Ok<paths['/api/storage/nfs']['get']>;
export type Backend = NfsState['backend'];
export type ExportView = Ok<paths['/api/storage/exports']['get']>[number];
export type ExportCreate = Body<paths['/api/storage/exports']['post']>;
export type ExportUpdate = Body<paths['/api/storage/exports/{export_id}']['put']>;
export type Protocol = ExportView['protocol'];

const nfsKey = ['storage', 'nfs'] as const;

export function useNfs() {
  const { client, key } = useStorageScope();
  return useQuery({ queryKey: [...key, ...nfsKey], queryFn: () => call(client.GET('/api/storage/nfs')), retry: retryUnreachable });
}

/** Switch the NFS server: the other one is emptied and stopped, the exports move to the new one. */
export function useSetBackend() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (backend: Backend) => call(client.PUT('/api/storage/nfs/backend', { body: { backend } })),
    onSuccess: (state) => queryClient.setQueryData([...key, ...nfsKey], state),
  });
}

export function useCreateExport() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ExportCreate) => call(client.POST('/api/storage/exports', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...nfsKey] }),
  });
}

export function useUpdateExport() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: ExportUpdate }) =>
      call(client.PUT('/api/storage/exports/{export_id}', { params: { path: { export_id: id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...nfsKey] }),
  });
}

export function useDeleteExport() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      call(client.DELETE('/api/storage/exports/{export_id}', { params: { path: { export_id: id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...nfsKey] }),
  });
}

// ---- iSCSI targets on zvols ----

export type Target = Ok<paths['/api/storage/iscsi/targets']['get']>[number];
export type TargetCreate = Body<paths['/api/storage/iscsi/targets']['post']>;
export type VolumeCreate = Body<paths['/api/storage/volumes']['post']>;

const targetsKey = ['storage', 'iscsi', 'targets'] as const;

export function useTargets() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...targetsKey],
    queryFn: () => call(client.GET('/api/storage/iscsi/targets')),
    retry: retryUnreachable,
  });
}

/** Create a target; the CHAP secret goes to the api once and is never read back. */
export function useCreateTarget() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TargetCreate) => call(client.POST('/api/storage/iscsi/targets', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...targetsKey] }),
  });
}

export function useDeleteTarget() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (iqn: string) =>
      call(client.DELETE('/api/storage/iscsi/targets/{iqn}', { params: { path: { iqn } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...targetsKey] }),
  });
}

/** A zvol for an iSCSI LUN; the pool's dataset list is read again. */
export function useCreateVolume() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: VolumeCreate) => call(client.POST('/api/storage/volumes', { body })),
    onSuccess: (volume) =>
      queryClient.invalidateQueries({ queryKey: [...key, ...datasetsKey(volume.name.split('/')[0] ?? '')] }),
  });
}

// ---- tuning: profiles, the sizing calculator, live module parameters ----

export type Profile = Ok<paths['/api/tuning/profiles']['get']>[number];
export type SizingInput = Body<paths['/api/tuning/recommendation']['post']>;
export type Plan = Ok<paths['/api/tuning/recommendation']['post']>;
export type Parameter = Ok<paths['/api/tuning/parameters']['get']>[number];

const parametersKey = ['tuning', 'parameters'] as const;

export function useProfiles() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, 'tuning', 'profiles'],
    queryFn: () => call(client.GET('/api/tuning/profiles')),
    staleTime: Infinity, // shipped with the appliance: they change only with it
    retry: retryUnreachable,
  });
}

/** Ask the calculator; it changes nothing on the appliance. */
export function useRecommendation() {
  const { client } = useStorageScope();
  return useMutation({ mutationFn: (body: SizingInput) => call(client.POST('/api/tuning/recommendation', { body })) });
}

export function useParameters() {
  const { client, key } = useStorageScope();
  return useQuery({
    queryKey: [...key, ...parametersKey],
    queryFn: () => call(client.GET('/api/tuning/parameters')),
    retry: retryUnreachable,
  });
}

/** Apply module parameters live and persist them (the whole set given is what is set at module load). */
export function useApplyParameters() {
  const { client, key } = useStorageScope();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: Record<string, number>) => call(client.PUT('/api/tuning/parameters', { body: { params } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...key, ...parametersKey] }),
  });
}
