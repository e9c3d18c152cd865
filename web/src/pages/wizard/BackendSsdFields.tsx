import type { Datastore } from '../../api/types';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { ssdKey } from './backendModel';
import type { LunChoice } from './draft';

type Role = 'log' | 'cache';

interface Props {
  host: string;
  /** The host's SLOG and L2ARC disks (LunChoice with role 'log' / 'cache'). */
  ssds: LunChoice[];
  /** Datastores of the host a VMDK can go on, SSD-backed ones first (backendModel.ssdDatastores). */
  candidates: { ds: Datastore; ssd: boolean }[];
  errors: Record<string, string>;
  onChange: (ssds: LunChoice[]) => void;
  clear: (key: string) => void;
}

const ROLES: { role: Role; name: string; what: string; sizeGb: number; hint: string }[] = [
  {
    role: 'log',
    name: 'SLOG',
    what: 'write log',
    sizeGb: 16,
    hint: 'The NFS datastore’s sync writes land here first: a few GiB is plenty (16 GiB holds seconds of writes).',
  },
  {
    role: 'cache',
    name: 'L2ARC',
    what: 'read cache',
    sizeGb: 100,
    hint: 'A read cache behind the appliance’s RAM: the golden image’s hot blocks stay off the SAN.',
  },
];

const describe = ({ ds, ssd }: { ds: Datastore; ssd: boolean }) =>
  `${ds.name} — ${ssd ? 'SSD' : 'not reported as SSD'}, ${formatBytes(ds.free_bytes)} free`;

/** One appliance's optional SSDs: a SLOG and an L2ARC, each a thin VMDK on a (local SSD) datastore of its host. */
export function BackendSsdFields({ host, ssds, candidates, errors, onChange, clear }: Props) {
  const options = [{ value: '', label: 'Choose a datastore…' }, ...candidates.map((c) => ({ value: c.ds.name, label: describe(c) }))];
  const others = (role: Role) => ssds.filter((s) => s.role !== role);
  const set = (role: Role, ssd: LunChoice | null) => onChange(ssd ? [...others(role), ssd] : others(role));
  return (
    <div className="backend-luns backend-ssds" data-testid="backend-ssds">
      {ROLES.map(({ role, name, what, sizeGb, hint }) => {
        const ssd = ssds.find((s) => s.role === role);
        const vmdk = ssd?.kind === 'vmdk' ? ssd : null;
        return (
          <div key={role} data-testid="backend-ssd" data-role={role}>
            <label className="checkbox-line">
              <input
                type="checkbox"
                name={`ssd-${role}`}
                checked={Boolean(ssd)}
                disabled={!ssd && candidates.length === 0}
                onChange={(event) => {
                  clear(ssdKey(host, role, 'datastore'));
                  clear(ssdKey(host, role, 'size'));
                  set(role, event.target.checked ? { kind: 'vmdk', datastore: candidates[0]?.ds.name ?? '', sizeGb, role } : null);
                }}
              />{' '}
              {name} SSD ({what})<span className="sr-only"> for {host}</span>
            </label>
            {vmdk && (
              <div className="form-row">
                <SelectField
                  label={`${name} datastore`}
                  name={`ssd-${role}-datastore`}
                  value={vmdk.datastore}
                  options={options}
                  hint={hint}
                  error={errors[ssdKey(host, role, 'datastore')]}
                  onChange={(datastore) => {
                    clear(ssdKey(host, role, 'datastore'));
                    set(role, { ...vmdk, datastore });
                  }}
                />
                <TextField
                  label={`${name} size (GiB)`}
                  name={`ssd-${role}-size`}
                  type="number"
                  width="short"
                  value={vmdk.sizeGb ? String(vmdk.sizeGb) : ''}
                  error={errors[ssdKey(host, role, 'size')]}
                  onChange={(value) => {
                    clear(ssdKey(host, role, 'size'));
                    set(role, { ...vmdk, sizeGb: value === '' ? 0 : Number(value) });
                  }}
                />
              </div>
            )}
            {ssd && !vmdk && (
              <p>
                {name}: RDM of <code>{ssd.kind === 'rdm' ? ssd.lun : ''}</code>
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
