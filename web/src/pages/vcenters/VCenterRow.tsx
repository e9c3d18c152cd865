import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { Link } from 'react-router';
import type { VCenter } from '../../api/types';
import { useTestVCenter } from '../../api/vcenters';
import { formatAddress, formatDate, formatDateTime } from '../../format';
import { Thumbprint } from '../../components/Thumbprint';

export function VCenterRow({ vcenter, onDelete }: { vcenter: VCenter; onDelete: () => void }) {
  const test = useTestVCenter();
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
        {test.isPending && <span className="muted">Testing…</span>}
        {test.isSuccess && (
          <span className="status status-ok">
            <CdsIcon shape="check-circle" status="success" solid /> Connected
          </span>
        )}
        {test.isSuccess && (
          <div className="muted small">
            {test.data.about.api_type === 'HostAgent' ? 'ESXi' : 'vCenter'} {test.data.about.version}
          </div>
        )}
        {test.isError && (
          <span className="status status-error" title={test.error.message}>
            <CdsIcon shape="exclamation-circle" status="danger" solid /> {test.error.message}
          </span>
        )}
        {test.isIdle && <span className="muted">Not tested</span>}
      </td>
      <td className="col-actions">
        <div className="row-actions">
          <CdsButton size="sm" action="outline" onClick={() => test.mutate(vcenter.id)} disabled={test.isPending}>
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
