import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router';
import { useStoragePresence } from '../api/storage';
import { Loading } from '../components/Loading';
import { NoLocalStorage } from './NoLocalStorage';
import { PageErrorBoundary } from './PageErrorBoundary';

/**
 * The page's place in the shell: the header and nav stay while a page's code is fetched (or fails to be).
 * A storage page on a machine without storage (the fleet manager) says so instead of showing its tools' refusals.
 */
export function PageOutlet() {
  const { pathname } = useLocation();
  const presence = useStoragePresence();
  const storagePage = pathname === '/storage' || pathname.startsWith('/storage/');
  if (storagePage && presence.data && !presence.data.present) {
    return <NoLocalStorage reason={presence.data.reason ?? ''} />;
  }
  return (
    <PageErrorBoundary resetKey={pathname}>
      <Suspense fallback={<Loading label="Loading the page" />}>
        <Outlet />
      </Suspense>
    </PageErrorBoundary>
  );
}
