import { CdsIcon } from '@cds/react/icon';
import { NavLink } from 'react-router';

const items = [
  { to: '/vcenters', label: 'vCenters', icon: 'vmw-app' },
  { to: '/deploy', label: 'Deploy', icon: 'deploy' },
] as const;

export function SideNav() {
  return (
    <nav className="app-sidenav" aria-label="Main">
      <ul>
        {items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}>
              <CdsIcon shape={item.icon} size="md" />
              <span>{item.label}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
