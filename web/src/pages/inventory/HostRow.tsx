import type { Host } from '../../api/types';
import { UsageBar } from '../../components/UsageBar';
import { formatBytes, formatMhz } from '../../format';
import { HostState } from './HostState';
import { TreeName } from './TreeName';

/** A host; `cluster` names its cluster (for tests and styling), absent for a standalone host. */
export function HostRow({ host, level, cluster }: { host: Host; level: number; cluster?: string }) {
  return (
    <tr className="tree-row tree-host" data-testid="host-row" data-cluster={cluster}>
      <TreeName level={level} icon="host" name={host.name} />
      <td>
        <HostState host={host} />
      </td>
      <td>
        <UsageBar label={`CPU of ${host.name}`} used={host.cpu_mhz_used} total={host.cpu_mhz_total} format={formatMhz} />
      </td>
      <td>
        <UsageBar
          label={`Memory of ${host.name}`}
          used={host.memory_used_bytes}
          total={host.memory_bytes}
          format={formatBytes}
        />
      </td>
      <td className="num">{host.cpu_cores}</td>
      <td>ESXi {host.version}</td>
    </tr>
  );
}
