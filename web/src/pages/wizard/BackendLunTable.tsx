import { CdsButton } from '@cds/react/button';
import type { Datastore } from '../../api/types';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { formatBytes } from '../../format';
import { lunKey } from './backendModel';
import type { LunChoice } from './draft';

interface Props {
  host: string;
  luns: LunChoice[];
  candidates: Datastore[];
  errors: Record<string, string>;
  onChange: (luns: LunChoice[]) => void;
  clear: (key: string) => void;
}

const describe = (ds: Datastore) =>
  `${ds.name} — ${ds.type === 'VMFS' ? 'VMFS' : `${ds.type}, not reported as VMFS`}, ${formatBytes(ds.free_bytes)} free`;

/** The SAN LUNs one appliance pools: a thin VMDK each, on a VMFS datastore its host sees. */
export function BackendLunTable({ host, luns, candidates, errors, onChange, clear }: Props) {
  const tableError = errors[`luns:${host}`];
  const options = [{ value: '', label: 'Choose a datastore…' }, ...candidates.map((ds) => ({ value: ds.name, label: describe(ds) }))];
  const set = (i: number, lun: LunChoice) => onChange(luns.map((l, j) => (j === i ? lun : l)));
  const add = () => {
    clear(`luns:${host}`);
    onChange([...luns, { kind: 'vmdk', datastore: candidates[0]?.name ?? '', sizeGb: 100 }]);
  };
  return (
    <div className="backend-luns" data-testid="backend-luns">
      {luns.map((lun, i) =>
        lun.kind === 'vmdk' ? (
          <div className="form-row" key={i} data-testid="backend-lun">
            <SelectField
              label={`LUN ${i + 1} datastore`}
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
              label={`LUN ${i + 1} size (GiB)`}
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
            <CdsButton action="flat" size="sm" className="lun-remove" onClick={() => onChange(luns.filter((_, j) => j !== i))}>
              Remove<span className="sr-only"> LUN {i + 1} of {host}</span>
            </CdsButton>
          </div>
        ) : (
          <p key={i}>
            RDM of <code>{lun.lun}</code>
          </p>
        ),
      )}
      {candidates.length === 0 && <p className="text-danger">{host} sees no VMFS datastore for the appliance’s LUNs.</p>}
      {tableError && (
        <p className="text-danger field-error" data-field-message={`luns:${host}`} role="alert">
          {tableError}
        </p>
      )}
      <div>
        <CdsButton action="outline" size="sm" onClick={add} disabled={candidates.length === 0}>
          Add a LUN<span className="sr-only"> to {host}</span>
        </CdsButton>
      </div>
    </div>
  );
}
