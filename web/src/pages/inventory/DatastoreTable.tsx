import type { Inventory } from '../../api/types';
import { UsageBar } from '../../components/UsageBar';
import { formatBytes } from '../../format';
import { TableSection } from '../../components/TableSection';
import { byName } from './model';

export function DatastoreTable({ inventory, names }: { inventory: Inventory; names: Map<string, string> }) {
  return (
    <TableSection
      id="datastores"
      title="Datastores"
      count={inventory.datastores.length}
      variant="inventory-section"
      head={
        <>
          <th className="col-name">Name</th>
          <th>Type</th>
          <th>State</th>
          <th className="col-usage">Used</th>
          <th className="num">Capacity</th>
          <th className="num">Free</th>
          <th>Mounted on</th>
        </>
      }
    >
      {byName(inventory.datastores).map((ds) => (
        <tr key={ds.moid}>
          <th scope="row">{ds.name}</th>
          <td>{ds.type}</td>
          <td>
            <span className={ds.accessible ? 'state state-ok' : 'state state-error'}>
              <span className="state-dot" aria-hidden="true" />
              {ds.accessible ? 'Accessible' : 'Inaccessible'}
            </span>
          </td>
          <td>
            <UsageBar
              label={`Space used on ${ds.name}`}
              used={ds.capacity_bytes - ds.free_bytes}
              total={ds.capacity_bytes}
              format={formatBytes}
            />
          </td>
          <td className="num">{formatBytes(ds.capacity_bytes)}</td>
          <td className="num">{formatBytes(ds.free_bytes)}</td>
          <td className="hosts-cell" title={ds.hosts.map((h) => names.get(h) ?? h).join(', ')}>
            {ds.hosts.length} {ds.hosts.length === 1 ? 'host' : 'hosts'}
          </td>
        </tr>
      ))}
    </TableSection>
  );
}
