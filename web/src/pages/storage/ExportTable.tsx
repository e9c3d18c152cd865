import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { TableSection } from '../../components/TableSection';
import type { ExportView } from '../../api/storage';

interface Props {
  exports: ExportView[];
  onEdit: (e: ExportView) => void;
  onRemove: (e: ExportView) => void;
}

export function ExportTable({ exports, onEdit, onRemove }: Props) {
  return (
    <TableSection
      id="exports"
      title="Exports"
      count={exports.length}
      variant="storage-section"
      testId="exports-table"
      head={
        <>
          <th>Dataset</th>
          <th>NFS path</th>
          <th>Protocol</th>
          <th>ESXi hosts</th>
          <th>Served</th>
          <th className="col-actions">Actions</th>
        </>
      }
    >
      {exports.map((e) => (
        <tr key={e.export_id} data-testid="export-row" data-dataset={e.dataset}>
          <th scope="row">
            <code className="device-path">{e.dataset}</code>
            <div className="muted small">Export {e.export_id}</div>
          </th>
          <td>
            <code>{e.path}</code>
          </td>
          <td className="nowrap">
            NFS {e.protocol}
            {e.insecure_ports && <span className="pill">ports &gt; 1023</span>}
          </td>
          <td>{e.clients.join(', ')}</td>
          <td>
            <span className={e.active ? 'state state-ok' : 'state state-warning'}>
              <span className="state-dot" aria-hidden="true" />
              {e.active ? `by ${e.backend}` : `not served by ${e.backend}`}
            </span>
          </td>
          <td className="col-actions">
            <div className="row-actions">
              <CdsButton size="sm" action="outline" onClick={() => onEdit(e)} aria-label={`Edit the export of ${e.dataset}`}>
                <CdsIcon shape="pencil" /> Edit
              </CdsButton>
              <CdsButton size="sm" action="outline" status="danger" onClick={() => onRemove(e)} aria-label={`Remove the export of ${e.dataset}`}>
                <CdsIcon shape="trash" /> Remove
              </CdsButton>
            </div>
          </td>
        </tr>
      ))}
    </TableSection>
  );
}
