import { TextField } from '../../components/TextField';

const FIELDS = [
  { key: 'ipv4_prefix', label: 'Prefix length', hint: '1 to 32 (24 for 255.255.255.0).', short: true },
  { key: 'ipv4_gateway', label: 'Gateway', hint: 'IPv4 address; empty for none.', short: false },
  { key: 'dns_servers', label: 'DNS servers', hint: 'IPv4 addresses, separated by commas or spaces.', short: false },
  { key: 'ntp_servers', label: 'NTP servers', hint: 'Optional: names or IPv4 addresses, separated by commas or spaces.', short: false },
] as const;

interface Props {
  properties: Record<string, string>;
  errors: Record<string, string>;
  set: (key: string, value: string) => void;
}

/** The OVF network properties every appliance shares (each has its own address, per host below). */
export function BackendNetworkFields({ properties, errors, set }: Props) {
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
    </div>
  );
}
