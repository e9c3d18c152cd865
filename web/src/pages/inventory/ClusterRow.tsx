import type { Cluster, Host } from '../../api/types';
import { UsageBar } from '../../components/UsageBar';
import { formatBytes, formatMhz } from '../../format';
import { totals } from './model';
import { TreeName } from './TreeName';

interface Props {
  cluster: Cluster;
  hosts: Host[];
  expanded: boolean;
  onToggle: () => void;
}

/** A cluster with its aggregate capacity; its hosts are rendered after it by the tree. */
export function ClusterRow({ cluster, hosts, expanded, onToggle }: Props) {
  const sum = totals(hosts);
  return (
    <tr className="tree-row tree-cluster" data-testid="cluster-row" data-cluster={cluster.name}>
      <TreeName level={2} icon="cluster" name={cluster.name} expanded={expanded} onToggle={onToggle}>
        <span className={cluster.drs_enabled ? 'pill pill-on' : 'pill'} title="vSphere DRS">
          DRS {cluster.drs_enabled ? 'on' : 'off'}
        </span>
        <span className={cluster.ha_enabled ? 'pill pill-on' : 'pill'} title="vSphere HA">
          HA {cluster.ha_enabled ? 'on' : 'off'}
        </span>
      </TreeName>
      <td>
        {hosts.length} {hosts.length === 1 ? 'host' : 'hosts'}
      </td>
      <td>
        <UsageBar label={`CPU of ${cluster.name}`} used={sum.cpuUsed} total={sum.cpuTotal} format={formatMhz} />
      </td>
      <td>
        <UsageBar label={`Memory of ${cluster.name}`} used={sum.memUsed} total={sum.memTotal} format={formatBytes} />
      </td>
      <td className="num">{hosts.reduce((n, h) => n + h.cpu_cores, 0)}</td>
      <td />
    </tr>
  );
}
