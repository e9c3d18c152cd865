import { CdsIcon } from '@cds/react/icon';
import { NavLink } from 'react-router';
import { useStoragePresence } from '../api/storage';

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

export function SideNav() {
  // The fleet manager has no storage of its own: no Storage group (shown when the api cannot tell).
  const presence = useStoragePresence();
  const storage = presence.data ? presence.data.present : presence.isError;
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
      </div>
    </nav>
  );
}
