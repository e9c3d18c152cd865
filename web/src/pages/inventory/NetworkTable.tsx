import type { Inventory } from '../../api/types';
import { humanize } from '../../format';
import { byName } from './model';

const KINDS: Record<string, string> = {
  Network: 'Standard port group',
  DistributedVirtualPortgroup: 'Distributed port group',
  OpaqueNetwork: 'Opaque network (NSX)',
};

export function NetworkTable({ inventory }: { inventory: Inventory }) {
  const hostsSeeing = (moid: string) => inventory.hosts.filter((h) => h.networks.includes(moid)).length;
  return (
    <section className="card inventory-section" aria-labelledby="networks-title">
      <h2 id="networks-title" cds-text="section">
        Networks <span className="count">{inventory.networks.length}</span>
      </h2>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
          <thead>
            <tr>
              <th className="col-name">Name</th>
              <th>Type</th>
              <th className="num">Hosts</th>
            </tr>
          </thead>
          <tbody>
            {byName(inventory.networks).map((net) => (
              <tr key={net.moid}>
                <th scope="row">{net.name}</th>
                <td>{KINDS[net.kind] ?? humanize(net.kind)}</td>
                <td className="num">{hostsSeeing(net.moid)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
