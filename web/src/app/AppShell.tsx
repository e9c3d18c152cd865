import { Outlet } from 'react-router';
import { AlertBanner } from './AlertBanner';
import { AppHeader } from './AppHeader';
import { SideNav } from './SideNav';

/** The Clarity application layout: header on top, vertical nav on the left, the page on the right. */
export function AppShell() {
  return (
    <div className="app-shell">
      <AppHeader />
      <AlertBanner />
      <div className="app-body">
        <SideNav />
        <main className="app-content" id="main">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
