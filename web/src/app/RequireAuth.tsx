import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useMe } from '../api/auth';
import { ApiError } from '../api/errors';
import { ErrorState } from '../components/ErrorState';
import { Loading } from '../components/Loading';

/** Render children only for a signed-in user; anyone else goes to the login page. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();

  if (me.isPending) return <Loading label="Checking your session" fullPage />;
  if (me.isError) {
    if (me.error instanceof ApiError && me.error.status === 401) {
      return <Navigate to="/login" replace state={{ from: location.pathname }} />;
    }
    return (
      <div className="page-center">
        <ErrorState title="The arcvsa api does not answer" error={me.error} onRetry={() => void me.refetch()} />
      </div>
    );
  }
  return children;
}
