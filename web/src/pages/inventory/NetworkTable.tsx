import type { Inventory } from '../../api/types';
import { humanize } from '../../format';
import { TableSection } from '../../components/TableSection';
import { byName } from './model';

const KINDS: Record<string, string> = {
  Network: 'Standard port group',
  DistributedVirtualPortgroup: 'Distributed port group',
  OpaqueNetwork: 'Opaque network (NSX)',
};

export function NetworkTable({ inventory }: { inventory: Inventory }) {
  const hostsSeeing = (moid: string) => inventory.hosts.filter((h) => h.networks.includes(moid)).length;
  return (
    <TableSection
      id="networks"
      title="Networks"
      count={inventory.networks.length}
      variant="inventory-section"
      head={
        <>
          <th className="col-name">Name</th>
          <th>Type</th>
          <th className="num">Hosts</th>
        </>
      }
    >
      {byName(inventory.networks).map((net) => (
        <tr key={net.moid}>
          <th scope="row">{net.name}</th>
          <td>{KINDS[net.kind] ?? humanize(net.kind)}</td>
          <td className="num">{hostsSeeing(net.moid)}</td>
        </tr>
      ))}
    </TableSection>
  );
}
