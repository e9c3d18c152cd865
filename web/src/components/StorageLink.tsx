import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useStorageScope } from '../api/scope';

/** A link to another storage page of the same appliance (this machine's, or one's through the manager). */
export function StorageLink({ to, children }: { to: `/storage${string}`; children: ReactNode }) {
  const scope = useStorageScope();
  return <Link to={scope.to(to)}>{children}</Link>;
}
