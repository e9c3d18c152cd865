import { CdsIcon } from '@cds/react/icon';
import { Link, useNavigate } from 'react-router';
import { useLogout, useMe } from '../api/auth';
import { BrandMark } from '../components/BrandMark';

export function AppHeader() {
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();

  const signOut = () =>
    logout.mutate(undefined, { onSettled: () => navigate('/login', { replace: true }) });

  return (
    <header className="app-header">
      <Link className="app-brand" to="/vcenters">
        <BrandMark />
        <span className="app-brand-name">arcvsa</span>
        <span className="app-brand-sub">VDI storage acceleration</span>
      </Link>
      <div className="app-header-actions">
        <span className="app-header-user">
          <CdsIcon shape="user" size="md" />
          <span className="sr-only">Signed in as</span>
          <span data-testid="signed-in-user">{me.data?.username}</span>
        </span>
        <button type="button" className="app-header-button" onClick={signOut} disabled={logout.isPending}>
          <CdsIcon shape="logout" size="md" />
          <span>Log out</span>
        </button>
      </div>
    </header>
  );
}
