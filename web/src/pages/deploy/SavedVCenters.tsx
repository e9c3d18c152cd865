import { CdsIcon } from '@cds/react/icon';
import { Link } from 'react-router';
import { useVCenters } from '../../api/vcenters';
import { formatAddress } from '../../format';

/** Already connected vCenters, to continue from one of them instead of adding another. */
export function SavedVCenters() {
  const vcenters = useVCenters();
  if (!vcenters.isSuccess || vcenters.data.length === 0) return null;
  return (
    <aside className="card saved-vcenters" aria-labelledby="saved-title">
      <h2 id="saved-title" cds-text="section">
        Or use a connected vCenter
      </h2>
      <ul>
        {vcenters.data.map((vc) => (
          <li key={vc.id}>
            <CdsIcon shape="vmw-app" />
            <Link to={`/vcenters/${vc.id}/inventory`}>{vc.name}</Link>
            <span className="muted mono">{formatAddress(vc.host, vc.port)}</span>
          </li>
        ))}
      </ul>
    </aside>
  );
}
