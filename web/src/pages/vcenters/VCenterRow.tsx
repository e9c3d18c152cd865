import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { Link } from 'react-router';
import type { VCenter } from '../../api/types';
import { formatAddress, formatDate, formatDateTime } from '../../format';
import { Thumbprint } from '../../components/Thumbprint';
import { ConnectionState } from './ConnectionState';
import { useConnectionState } from './connectionState';

export function VCenterRow({ vcenter, onDelete }: { vcenter: VCenter; onDelete: () => void }) {
  const state = useConnectionState(vcenter.id);
  return (
    <tr>
      <th scope="row" className="nowrap">
        <Link to={`/vcenters/${vcenter.id}/inventory`}>{vcenter.name}</Link>
      </th>
      <td className="nowrap">{formatAddress(vcenter.host, vcenter.port)}</td>
      <td>{vcenter.username}</td>
      <td>
        {vcenter.thumbprint_sha256 ? (
          <Thumbprint value={vcenter.thumbprint_sha256} compact />
        ) : (
          <span className="muted">CA-trusted</span>
        )}
      </td>
      <td className="nowrap" title={formatDateTime(vcenter.created_at)}>
        {formatDate(vcenter.created_at)}
      </td>
      <td aria-live="polite">
        <ConnectionState id={vcenter.id} />
      </td>
      <td className="col-actions">
        <div className="row-actions">
          <CdsButton size="sm" action="outline" onClick={() => void state.refetch()} disabled={state.isFetching} aria-label={`Test ${vcenter.name}`}>
            Test
          </CdsButton>
          <CdsButton size="sm" action="outline" status="danger" onClick={onDelete} aria-label={`Delete ${vcenter.name}`}>
            <CdsIcon shape="trash" /> Delete
          </CdsButton>
        </div>
      </td>
    </tr>
  );
}
