import type { Protocol } from '../../api/storage';

const CHOICES: { value: Protocol; label: string; hint: string }[] = [
  { value: '3', label: 'NFS 3', hint: 'one TCP connection per datastore; what most VDI datastores use' },
  { value: '4.1', label: 'NFS 4.1', hint: 'session trunking over several paths; Kerberos possible' },
];

/** NFS version of the datastore, as radio buttons (a host mounts a datastore over one version only). */
export function ProtocolField({ value, onChange }: { value: Protocol; onChange: (value: Protocol) => void }) {
  return (
    <fieldset className="choice-group">
      <legend>Protocol</legend>
      {CHOICES.map((c) => (
        <label key={c.value} className="checkbox-line">
          <input type="radio" name="protocol" value={c.value} checked={value === c.value} onChange={() => onChange(c.value)} />
          <span>
            {c.label} <span className="muted">— {c.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
