import { CdsIcon } from '@cds/react/icon';
import { NavLink, useMatch } from 'react-router';
import { appliancePath } from '../api/scope';
import { useStoragePresence } from '../api/storage';
import { APPLIANCE_STORAGE } from './pages';

const items = [
  { to: '/vcenters', label: 'vCenters', icon: 'vmw-app' },
  { to: '/deploy', label: 'Deploy', icon: 'deploy' },
  { to: '/pools', label: 'Desktop pools', icon: 'vm' },
  { to: '/fleet', label: 'Fleet', icon: 'line-chart' },
  { to: '/appliances', label: 'Appliances', icon: 'cluster' },
  { to: '/settings', label: 'Settings', icon: 'cog' },
] as const;

// The appliance's own storage; /storage is its dashboard (matched exactly, not for every storage page).
const storageItems = [
  { to: '/storage', label: 'Dashboard', icon: 'line-chart', end: true },
  { to: '/storage/disks', label: 'Disks', icon: 'hard-disk' },
  { to: '/storage/pools', label: 'Pools', icon: 'storage' },
  { to: '/storage/datasets', label: 'Datasets', icon: 'folder' },
  { to: '/storage/exports', label: 'NFS exports', icon: 'share' },
  { to: '/storage/iscsi', label: 'iSCSI targets', icon: 'storage-adapter' },
  { to: '/storage/tuning', label: 'Tuning', icon: 'slider' },
  { to: '/storage/calibration', label: 'Calibration', icon: 'dashboard' },
] as const;

function NavItem({ to, label, icon, end }: { to: string; label: string; icon: string; end?: boolean }) {
  return (
    <li>
      <NavLink to={to} end={end} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
        <CdsIcon shape={icon} size="md" />
        <span>{label}</span>
      </NavLink>
    </li>
  );
}

/** The storage pages of the appliance shown through the manager, while one is. */
function ApplianceGroup({ deployment, name }: { deployment: number; name: string }) {
  return (
    <>
      <h2 className="nav-group" id="nav-appliance">
        Storage of {name}
      </h2>
      <ul aria-labelledby="nav-appliance">
        {storageItems.map((item) => (
          <NavItem key={item.to} {...item} to={appliancePath(deployment, name, item.to)} />
        ))}
      </ul>
    </>
  );
}

export function SideNav() {
  // The fleet manager has no storage of its own: no Storage group (shown when the api cannot tell).
  const presence = useStoragePresence();
  const storage = presence.data ? presence.data.present : presence.isError;
  const shown = useMatch(`${APPLIANCE_STORAGE}/*`);
  return (
    <nav className="app-sidenav" aria-label="Main">
      <div className="nav-sticky">
        <ul>
          {items.map((item) => (
            <NavItem key={item.to} {...item} />
          ))}
        </ul>
        {storage && (
          <>
            <h2 className="nav-group" id="nav-storage">
              Storage
            </h2>
            <ul aria-labelledby="nav-storage">
              {storageItems.map((item) => (
                <NavItem key={item.to} {...item} />
              ))}
            </ul>
          </>
        )}
        {shown?.params.appliance && (
          <ApplianceGroup deployment={Number(shown.params.deployment)} name={shown.params.appliance} />
        )}
      </div>
    </nav>
  );
}
