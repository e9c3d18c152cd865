import { Fragment, useState } from 'react';
import type { Inventory } from '../../api/types';
import { ClusterRow } from './ClusterRow';
import { HostRow } from './HostRow';
import { byName } from './model';
import { TreeName } from './TreeName';

/** Datacenter → cluster → host, as vSphere's "Hosts and Clusters" view, with capacity per row. */
export function ComputeTree({ inventory }: { inventory: Inventory }) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const toggle = (moid: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(moid)) next.add(moid);
      return next;
    });
  const open = (moid: string) => !collapsed.has(moid);

  return (
    <section className="card inventory-section" aria-labelledby="compute-title">
      <h2 id="compute-title" cds-text="section">
        Hosts and clusters
      </h2>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table tree-table">
          <thead>
            <tr>
              <th className="col-name">Name</th>
              <th>State</th>
              <th className="col-usage">CPU</th>
              <th className="col-usage">Memory</th>
              <th className="num">Cores</th>
              <th>Version</th>
            </tr>
          </thead>
          <tbody>
            {byName(inventory.datacenters).map((dc) => {
              const clusters = byName(inventory.clusters.filter((c) => c.datacenter === dc.moid));
              const standalone = byName(inventory.hosts.filter((h) => h.datacenter === dc.moid && !h.cluster));
              const hostCount = inventory.hosts.filter((h) => h.datacenter === dc.moid).length;
              return (
                <Fragment key={dc.moid}>
                  <tr className="tree-row tree-datacenter">
                    <TreeName
                      level={1}
                      icon="organization"
                      name={dc.name}
                      expanded={open(dc.moid)}
                      onToggle={() => toggle(dc.moid)}
                    />
                    <td colSpan={5} className="muted">
                      Datacenter · {clusters.length} {clusters.length === 1 ? 'cluster' : 'clusters'} · {hostCount}{' '}
                      {hostCount === 1 ? 'host' : 'hosts'}
                    </td>
                  </tr>
                  {open(dc.moid) &&
                    clusters.map((cluster) => {
                      const hosts = byName(inventory.hosts.filter((h) => h.cluster === cluster.moid));
                      return (
                        <Fragment key={cluster.moid}>
                          <ClusterRow
                            cluster={cluster}
                            hosts={hosts}
                            expanded={open(cluster.moid)}
                            onToggle={() => toggle(cluster.moid)}
                          />
                          {open(cluster.moid) && hosts.map((h) => <HostRow key={h.moid} host={h} level={3} cluster={cluster.name} />)}
                        </Fragment>
                      );
                    })}
                  {open(dc.moid) && standalone.map((h) => <HostRow key={h.moid} host={h} level={2} />)}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
