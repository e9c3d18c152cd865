import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Loading } from '../components/Loading';
import { PageErrorBoundary } from './PageErrorBoundary';

/** The page's place in the shell: the header and nav stay while a page's code is fetched (or fails to be). */
export function PageOutlet() {
  const { pathname } = useLocation();
  return (
    <PageErrorBoundary resetKey={pathname}>
      <Suspense fallback={<Loading label="Loading the page" />}>
        <Outlet />
      </Suspense>
    </PageErrorBoundary>
  );
}
