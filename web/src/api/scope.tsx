import createClient from 'openapi-fetch';
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { api, middlewares } from './client';
import type { paths } from './schema';

/**
 * Whose storage a storage page shows: this machine's own (an appliance), or one appliance of a deployment
 * asked through the fleet manager (/api/fleet/{deployment}/appliances/{name} passes its storage routes on).
 * The pages call the same routes either way; the scope gives them the client, a query-key prefix (two
 * appliances' pools never share a cache entry) and the path their links go to.
 */
export interface StorageScope {
  client: typeof api;
  key: readonly (string | number)[];
  /** the page path for a storage path such as /storage/pools */
  to: (path: string) => string;
  appliance: { deployment: number; name: string } | null;
}

const local: StorageScope = { client: api, key: [], to: (path) => path, appliance: null };

const ScopeContext = createContext<StorageScope>(local);

export function useStorageScope(): StorageScope {
  return useContext(ScopeContext);
}

/** The page path of an appliance's storage page through the manager, e.g. /fleet/3/vsa-0/storage/pools. */
export function appliancePath(deployment: number, name: string, path = '/storage'): string {
  return `/fleet/${deployment}/${encodeURIComponent(name)}${path}`;
}

export function applianceScope(deployment: number, name: string): StorageScope {
  const client = createClient<paths>({
    baseUrl: `/api/fleet/${deployment}/appliances/${encodeURIComponent(name)}`,
    credentials: 'same-origin',
  });
  client.use(...middlewares);
  return {
    client,
    key: ['appliance', deployment, name],
    to: (path) => appliancePath(deployment, name, path),
    appliance: { deployment, name },
  };
}

export function ApplianceScopeProvider({
  deployment,
  name,
  children,
}: {
  deployment: number;
  name: string;
  children: ReactNode;
}) {
  const scope = useMemo(() => applianceScope(deployment, name), [deployment, name]);
  return <ScopeContext.Provider value={scope}>{children}</ScopeContext.Provider>;
}
