import { CdsButton } from '@cds/react/button';
import { TextField } from '../../components/TextField';
import { HostsField } from '../storage/HostsField';
import { defaultNfsClients } from './placementModel';

const FIELDS = [
  { key: 'ipv4_prefix', label: 'Prefix length', hint: '1 to 32 (24 for 255.255.255.0).', short: true },
  { key: 'ipv4_gateway', label: 'Gateway', hint: 'IPv4 address; empty for none.', short: false },
  { key: 'dns_servers', label: 'DNS servers', hint: 'IPv4 addresses, separated by commas or spaces.', short: false },
  { key: 'ntp_servers', label: 'NTP servers', hint: 'Optional: names or IPv4 addresses, separated by commas or spaces.', short: false },
] as const;

/** The NFS export's clients: the cluster hosts' VMkernel addresses unless the admin edits the list. */
export interface NfsClients {
  /** The list as edited (one address per line); undefined while it is the hosts' own. */
  value: string | undefined;
  /** Each cluster host with its NFS VMkernel addresses, from vCenter. */
  hosts: { host: string; addresses: string[] }[];
  onChange: (value: string | undefined) => void;
}

interface Props {
  properties: Record<string, string>;
  errors: Record<string, string>;
  set: (key: string, value: string) => void;
  clients?: NfsClients;
}

/** The export's clients, shown in full and editable; the hosts' addresses until the admin changes them. */
function NfsClientsField({ clients, error }: { clients: NfsClients; error?: string }) {
  const defaults = defaultNfsClients(clients.hosts);
  const shown = clients.value ?? defaults.join('\n');
  const from = clients.hosts.map((h) => `${h.host}: ${h.addresses.join(', ') || 'none'}`).join('; ');
  return (
    <div data-testid="nfs-clients">
      <HostsField
        label="NFS export clients"
        name="nfsClients"
        value={shown}
        error={error}
        hint={`The ESXi VMkernel addresses (management-tagged or untagged NICs) the appliances export to, from vCenter: ${from || 'no host'}.`}
        onChange={(value) => clients.onChange(value)}
      />
      {clients.value !== undefined && (
        <CdsButton type="button" action="flat" size="sm" onClick={() => clients.onChange(undefined)}>
          Use the hosts' addresses
        </CdsButton>
      )}
    </div>
  );
}

/** The OVF network properties every appliance shares (each has its own address, per host below). */
export function BackendNetworkFields({ properties, errors, set, clients }: Props) {
  return (
    <div className="form-grid">
      <div className="form-row">
        {FIELDS.slice(0, 2).map((f) => (
          <TextField
            key={f.key}
            label={f.label}
            name={f.key}
            width={f.short ? 'short' : undefined}
            value={properties[f.key] ?? ''}
            hint={f.hint}
            error={errors[f.key]}
            onChange={(value) => set(f.key, value)}
          />
        ))}
      </div>
      {FIELDS.slice(2).map((f) => (
        <TextField
          key={f.key}
          label={f.label}
          name={f.key}
          value={properties[f.key] ?? ''}
          hint={f.hint}
          error={errors[f.key]}
          onChange={(value) => set(f.key, value)}
        />
      ))}
      {clients && <NfsClientsField clients={clients} error={errors.nfsClients} />}
    </div>
  );
}
