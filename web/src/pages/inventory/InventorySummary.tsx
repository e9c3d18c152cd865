import { CdsIcon } from '@cds/react/icon';
import type { Inventory } from '../../api/types';
import { formatBytes, formatMhz } from '../../format';
import { totals } from './model';

/** What this vCenter is and how much it holds, at a glance. */
export function InventorySummary({ inventory }: { inventory: Inventory }) {
  const { about } = inventory;
  const sum = totals(inventory.hosts);
  const capacity = inventory.datastores.reduce((n, d) => n + d.capacity_bytes, 0);
  const free = inventory.datastores.reduce((n, d) => n + d.free_bytes, 0);
  const counters = [
    { label: 'Datacenters', value: inventory.datacenters.length, icon: 'organization' },
    { label: 'Clusters', value: inventory.clusters.length, icon: 'cluster' },
    { label: 'Hosts', value: inventory.hosts.length, icon: 'host' },
    { label: 'Virtual machines', value: inventory.vms.length, icon: 'vm' },
    { label: 'Datastores', value: inventory.datastores.length, icon: 'storage' },
    { label: 'Networks', value: inventory.networks.length, icon: 'network-switch' },
  ];
  return (
    <section className="summary card" aria-label="Summary">
      <div className="summary-about">
        <CdsIcon shape="vmw-app" size="xl" />
        <div>
          <div className="summary-title">{about.name}</div>
          <div cds-text="secondary">
            Version {about.version} · build {about.build} · {about.api_type}
          </div>
          <div className="summary-capacity" cds-text="secondary">
            CPU {formatMhz(sum.cpuTotal)} · memory {formatBytes(sum.memTotal)} · storage {formatBytes(capacity)} (
            {formatBytes(free)} free)
          </div>
        </div>
      </div>
      <ul className="summary-counters">
        {counters.map((c) => (
          <li key={c.label}>
            <CdsIcon shape={c.icon} size="md" />
            <span className="counter-value">{c.value}</span>
            <span className="counter-label">{c.label}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
