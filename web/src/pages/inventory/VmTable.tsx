import type { VirtualMachine } from '../../api/types';
import { formatMib, humanize } from '../../format';
import { SnapshotTree } from './SnapshotTree';

interface Props {
  vms: VirtualMachine[];
  names: Map<string, string>;
  showSnapshots?: boolean;
}

const POWER_LEVEL: Record<string, string> = { poweredOn: 'ok', suspended: 'warning' };

export function VmTable({ vms, names, showSnapshots = false }: Props) {
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table">
        <thead>
          <tr>
            <th className="col-name">Name</th>
            <th>Power</th>
            <th>Host</th>
            <th>Guest OS</th>
            <th className="num">vCPU</th>
            <th className="num">Memory</th>
            <th>Datastores</th>
            {showSnapshots && <th>Snapshots</th>}
          </tr>
        </thead>
        <tbody>
          {vms.map((vm) => (
            <tr key={vm.moid}>
              <th scope="row">
                {vm.name}
                {vm.template && <span className="pill pill-on">Template</span>}
              </th>
              <td>
                <span className={`state state-${POWER_LEVEL[vm.power_state] ?? 'off'}`}>
                  <span className="state-dot" aria-hidden="true" />
                  {humanize(vm.power_state)}
                </span>
              </td>
              <td>{vm.host ? (names.get(vm.host) ?? vm.host) : '—'}</td>
              <td>{vm.guest_os || '—'}</td>
              <td className="num">{vm.num_cpu}</td>
              <td className="num">{formatMib(vm.memory_mb)}</td>
              <td>{vm.datastores.map((d) => names.get(d) ?? d).join(', ') || '—'}</td>
              {showSnapshots && (
                <td>
                  <SnapshotTree snapshots={vm.snapshots} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
