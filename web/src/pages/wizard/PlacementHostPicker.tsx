import type { Host, Inventory } from '../../api/types';
import { UsageBar } from '../../components/UsageBar';
import { formatBytes, formatMhz } from '../../format';
import { type ApplianceSize, datastoresOf, freeCpuMhz, freeMemoryBytes, noRoom, unusable } from './placementModel';

interface Props {
  inventory: Inventory;
  hosts: Host[];
  chosen: readonly string[];
  /** The appliance size each host is weighed against. */
  size: ApplianceSize;
  error?: string;
  onToggle: (host: string, on: boolean) => void;
}

/** The cluster's hosts, one checkbox each, with what is free on them and the datastores they see. */
export function PlacementHostPicker({ inventory, hosts, chosen, size, error, onToggle }: Props) {
  const messageId = 'placement-hosts-message';
  return (
    <fieldset className="disk-picker" data-field="hosts" aria-describedby={error ? messageId : undefined}>
      <legend>Hosts</legend>
      <p className="muted small">
        Each chosen host gets one arcvsa appliance, which serves its desktops from the SAN LUNs. A {size.label} appliance takes{' '}
        <strong>
          {size.ramGib} GiB of memory and {size.vcpus} CPU cores
        </strong>{' '}
        of its host (its memory is the ZFS read cache, never overcommitted); the size is chosen in the Back end step.
      </p>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
          <thead>
            <tr>
              <th>Host</th>
              <th className="col-usage">CPU</th>
              <th className="col-usage">Memory</th>
              <th>Room for the appliance</th>
              <th>Datastores</th>
            </tr>
          </thead>
          <tbody>
            {hosts.map((host) => {
              const why = unusable(host);
              const full = noRoom(host, size);
              return (
                <tr key={host.moid} data-testid="placement-host" data-host={host.name}>
                  <th scope="row">
                    <label className="checkbox-line">
                      <input
                        type="checkbox"
                        checked={chosen.includes(host.name)}
                        disabled={why !== null && !chosen.includes(host.name)}
                        onChange={(event) => onToggle(host.name, event.target.checked)}
                        aria-invalid={error ? true : undefined}
                        aria-describedby={error ? messageId : undefined}
                      />
                      <span>
                        {host.name}
                        {why && <span className="muted small"> — {why}</span>}
                      </span>
                    </label>
                  </th>
                  <td>
                    <UsageBar label={`CPU of ${host.name}`} used={host.cpu_mhz_used} total={host.cpu_mhz_total} format={formatMhz} />
                    <span className="muted small">{formatMhz(freeCpuMhz(host))} free</span>
                  </td>
                  <td>
                    <UsageBar label={`Memory of ${host.name}`} used={host.memory_used_bytes} total={host.memory_bytes} format={formatBytes} />
                    <span className="muted small">{formatBytes(freeMemoryBytes(host))} free</span>
                  </td>
                  <td data-testid="placement-room">
                    {full ? (
                      <span className="text-danger small">Does not fit: {full}</span>
                    ) : (
                      <span className="small">Fits a {size.label} appliance</span>
                    )}
                  </td>
                  <td>
                    {datastoresOf(inventory, host).map((ds) => (
                      <div key={ds.moid} className="nowrap small">
                        {ds.name} <span className="muted">({ds.type}, {formatBytes(ds.free_bytes)} free)</span>
                      </div>
                    ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {error && (
        <p id={messageId} className="text-danger field-error" data-field-message="hosts">
          {error}
        </p>
      )}
    </fieldset>
  );
}
