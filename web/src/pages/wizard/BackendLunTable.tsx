import { CdsButton } from '@cds/react/button';
import type { Datastore } from '../../api/types';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { type HostLun, lunKey } from './backendModel';
import { isSsd, type LunChoice } from './draft';

interface Props {
  host: string;
  luns: LunChoice[];
  candidates: Datastore[];
  /** The host's disks it may map raw (rdmLuns): no VMFS on them, not mapped on another host. */
  rdmCandidates: HostLun[];
  errors: Record<string, string>;
  onChange: (luns: LunChoice[]) => void;
  clear: (key: string) => void;
}

const describe = (ds: Datastore) =>
  `${ds.name} — ${ds.type === 'VMFS' ? 'VMFS' : `${ds.type}, not reported as VMFS`}${ds.san ? ' on a SAN LUN' : ''}, ${formatBytes(ds.free_bytes)} free`;

const describeLun = (lun: HostLun) => {
  const product = [lun.vendor, lun.model].filter(Boolean).join(' ');
  const how = lun.san ? (lun.transport ?? '').toUpperCase() : lun.local ? 'local' : (lun.transport ?? 'not on a SAN');
  return `${lun.canonical_name} — ${formatBytes(lun.capacity_bytes)}${product ? `, ${product}` : ''}, ${how}${lun.ssd ? ', SSD' : ''}`;
};

const KINDS = [
  { value: 'vmdk', label: 'Thin VMDK on a VMFS datastore' },
  { value: 'rdm', label: 'Raw device mapping (RDM) of a LUN' },
];

/** The SAN LUNs one appliance pools: a thin VMDK each on a VMFS datastore its host sees, or a LUN mapped raw. */
export function BackendLunTable({ host, luns, candidates, rdmCandidates, errors, onChange, clear }: Props) {
  const tableError = errors[`luns:${host}`];
  const options = [{ value: '', label: 'Choose a datastore…' }, ...candidates.map((ds) => ({ value: ds.name, label: describe(ds) }))];
  const set = (i: number, lun: LunChoice) => onChange(luns.map((l, j) => (j === i ? lun : l)));
  // A LUN mapped by another row of this appliance is not offered again (the plan refuses a LUN mapped twice).
  const rdmOptions = (i: number) => {
    const others = new Set(luns.flatMap((l, j) => (l.kind === 'rdm' && j !== i ? [l.lun] : [])));
    return [
      { value: '', label: 'Choose a LUN…' },
      ...rdmCandidates.filter((l) => !others.has(l.canonical_name)).map((l) => ({ value: l.canonical_name, label: describeLun(l) })),
    ];
  };
  const freeLun = () => {
    const chosen = new Set(luns.flatMap((l) => (l.kind === 'rdm' ? [l.lun] : [])));
    return rdmCandidates.find((l) => !chosen.has(l.canonical_name))?.canonical_name ?? '';
  };
  const setKind = (i: number, lun: LunChoice, kind: string) => {
    for (const part of ['datastore', 'size', 'lun'] as const) clear(lunKey(host, i, part));
    const guestPath = lun.guestPath ? { guestPath: lun.guestPath } : {};
    set(i, kind === 'rdm' ? { kind: 'rdm', lun: freeLun(), ...guestPath } : { kind: 'vmdk', datastore: candidates[0]?.name ?? '', sizeGb: 100, ...guestPath });
  };
  const add = () => {
    clear(`luns:${host}`);
    onChange([...luns, candidates.length > 0 ? { kind: 'vmdk', datastore: candidates[0]?.name ?? '', sizeGb: 100 } : { kind: 'rdm', lun: freeLun() }]);
  };
  // The pool's SSDs (SLOG, L2ARC) share the list but have fields of their own: `i` stays the index in the
  // whole list (the key of the row's errors), `n` numbers the SAN LUNs shown here.
  const shown = luns.map((lun, i) => ({ lun, i })).filter(({ lun }) => !isSsd(lun));
  return (
    <div className="backend-luns" data-testid="backend-luns">
      {shown.map(({ lun, i }, row) => {
        const n = row + 1;
        return (
          <div className="backend-lun" key={i} data-testid="backend-lun" data-kind={lun.kind}>
            <SelectField
              label={`LUN ${n} kind`}
              name={`lun-${i}-kind`}
              value={lun.kind}
              options={KINDS}
              onChange={(kind) => setKind(i, lun, kind)}
            />
            <div className="form-row">
              {lun.kind === 'vmdk' ? (
                <>
                  <SelectField
                    label={`LUN ${n} datastore`}
                    name={`lun-${i}-datastore`}
                    value={lun.datastore}
                    options={options}
                    error={errors[lunKey(host, i, 'datastore')]}
                    onChange={(datastore) => {
                      clear(lunKey(host, i, 'datastore'));
                      set(i, { ...lun, datastore });
                    }}
                  />
                  <TextField
                    label={`LUN ${n} size (GiB)`}
                    name={`lun-${i}-size`}
                    type="number"
                    width="short"
                    value={lun.sizeGb ? String(lun.sizeGb) : ''}
                    error={errors[lunKey(host, i, 'size')]}
                    onChange={(value) => {
                      clear(lunKey(host, i, 'size'));
                      set(i, { ...lun, sizeGb: value === '' ? 0 : Number(value) });
                    }}
                  />
                </>
              ) : (
                <SelectField
                  label={`LUN ${n} disk`}
                  name={`lun-${i}-lun`}
                  value={lun.lun}
                  options={rdmOptions(i)}
                  hint={rdmCandidates.length === 0 ? `${host} sees no LUN without VMFS that is not mapped already.` : undefined}
                  error={errors[lunKey(host, i, 'lun')]}
                  onChange={(value) => {
                    clear(lunKey(host, i, 'lun'));
                    set(i, { ...lun, lun: value });
                  }}
                />
              )}
              <CdsButton action="flat" size="sm" className="lun-remove" onClick={() => onChange(luns.filter((_, j) => j !== i))}>
                Remove<span className="sr-only"> LUN {n} of {host}</span>
              </CdsButton>
            </div>
          </div>
        );
      })}
      {candidates.length === 0 && rdmCandidates.length === 0 && (
        <p className="text-danger">{host} sees neither a VMFS datastore nor a free LUN for the appliance’s pool.</p>
      )}
      {tableError && (
        <p className="text-danger field-error" data-field-message={`luns:${host}`} role="alert">
          {tableError}
        </p>
      )}
      <div>
        <CdsButton action="outline" size="sm" onClick={add} disabled={candidates.length === 0 && rdmCandidates.length === 0}>
          Add a LUN<span className="sr-only"> to {host}</span>
        </CdsButton>
      </div>
    </div>
  );
}

interface GuestPathProps {
  host: string;
  luns: LunChoice[];
  errors: Record<string, string>;
  onChange: (luns: LunChoice[]) => void;
  clear: (key: string) => void;
}

/** Whether the Advanced section has guest paths to show (set, or refused). */
export function hasGuestPaths(host: string, luns: LunChoice[], errors: Record<string, string>): boolean {
  return luns.some((l, i) => Boolean(l.guestPath) || Boolean(errors[lunKey(host, i, 'guestPath')]));
}

/** For the Advanced section: each LUN's /dev/disk/by-id path in the appliance, where it cannot find it by WWN. */
export function BackendLunGuestPaths({ host, luns, errors, onChange, clear }: GuestPathProps) {
  let sanLuns = 0;
  const ssds: Record<string, number> = {};
  const labels = luns.map((lun) => {
    if (!isSsd(lun)) return `Guest path of LUN ${++sanLuns}`;
    const role = lun.role ?? 'data';
    ssds[role] = (ssds[role] ?? 0) + 1;
    return `Guest path of ${role} SSD ${ssds[role]}`;
  });
  return (
    <>
      {luns.map((lun, i) => (
        <TextField
          key={i}
          label={labels[i] ?? `Guest path of disk ${i + 1}`}
          name={`lun-${i}-guest-path`}
          value={lun.guestPath ?? ''}
          hint="/dev/disk/by-id/… of this disk inside the appliance, when it cannot be found by its WWN (disks without one). Empty: by WWN."
          error={errors[lunKey(host, i, 'guestPath')]}
          onChange={(value) => {
            clear(lunKey(host, i, 'guestPath'));
            const guestPath = value.trim();
            onChange(luns.map((l, j) => (j === i ? { ...l, guestPath: guestPath || undefined } : l)));
          }}
        />
      ))}
    </>
  );
}
