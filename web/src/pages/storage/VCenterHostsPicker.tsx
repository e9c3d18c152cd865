import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { useNfsClients, useVCenters } from '../../api/vcenters';
import { SelectField } from '../../components/SelectField';
import { parseClients } from './exportModel';

interface Props {
  /** The export's clients as typed (one per line). */
  clients: string;
  onChange: (clients: string) => void;
}

/**
 * The ESXi hosts of a vCenter this arcvsa knows, each with the VMkernel addresses it mounts NFS from
 * (management-tagged or untagged NICs): ticking a host adds its addresses to the export's clients.
 */
export function VCenterHostsPicker({ clients, onChange }: Props) {
  const vcenters = useVCenters();
  const [chosen, setChosen] = useState<number | null>(null);
  const only = vcenters.data?.length === 1 ? (vcenters.data[0]?.id ?? null) : null;
  const vcenterId = chosen ?? only;
  const hosts = useNfsClients(vcenterId);
  const typed = parseClients(clients);

  if (vcenters.isPending) return null;
  if (!vcenters.data?.length) {
    return <p className="muted small">Connect a vCenter (vCenters page) to pick the hosts instead of typing their addresses.</p>;
  }
  const toggle = (addresses: string[], on: boolean) => {
    const rest = typed.filter((a) => !addresses.includes(a));
    onChange((on ? [...rest, ...addresses] : rest).join('\n'));
  };
  return (
    <fieldset className="disk-picker" data-field="vcenter-hosts">
      <legend>Hosts from vCenter</legend>
      <SelectField
        label="vCenter"
        name="vcenter"
        value={vcenterId === null ? '' : String(vcenterId)}
        options={[{ value: '', label: 'Choose a vCenter…' }, ...vcenters.data.map((v) => ({ value: String(v.id), label: `${v.name} (${v.host})` }))]}
        onChange={(value) => setChosen(value ? Number(value) : null)}
        hint="Its hosts' VMkernel addresses that NFS mounts come from: management-tagged or untagged (storage) NICs."
      />
      {hosts.isPending && vcenterId !== null && <p className="muted small">Reading the hosts of the vCenter…</p>}
      {hosts.isError && <p className="text-danger small">The hosts could not be read: {messageOf(hosts.error)}</p>}
      {hosts.data && hosts.data.length === 0 && <p className="muted small">This vCenter has no connected host.</p>}
      {hosts.data && hosts.data.length > 0 && (
        <ul style={{ listStyle: 'none', paddingLeft: 0 }} aria-label="Hosts and their NFS addresses">
          {hosts.data.map((h) => {
            const on = h.addresses.length > 0 && h.addresses.every((a) => typed.includes(a));
            return (
              <li key={`${h.datacenter}/${h.host}`} data-testid="nfs-client-host" data-host={h.host}>
                <label className="checkbox-line">
                  <input
                    type="checkbox"
                    checked={on}
                    disabled={h.addresses.length === 0}
                    onChange={(event) => toggle(h.addresses, event.target.checked)}
                  />
                  <span>
                    {h.host} <span className="muted small">({h.cluster ?? 'standalone'})</span>:{' '}
                    <span>{h.addresses.join(', ') || 'no NFS VMkernel address'}</span>
                    {h.vmkernel.length > 0 && (
                      <span className="muted small">
                        {' '}
                        — {h.vmkernel.map((n) => `${n.device} ${n.address || 'no IPv4'}${n.services.length ? ` (${n.services.join(', ')})` : ' (untagged)'}`).join('; ')}
                      </span>
                    )}
                  </span>
                </label>
              </li>
            );
          })}
        </ul>
      )}
    </fieldset>
  );
}
