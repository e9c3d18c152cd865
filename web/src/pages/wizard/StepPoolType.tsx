import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import './backend.css';
import { useInventory } from '../../api/vcenters';
import { TextField } from '../../components/TextField';
import { ProtocolField } from '../storage/ProtocolField';
import type { Draft, StepProps } from './draft';
import { useRefusal } from './placementRefusal';
import { PoolTypeChoice } from './PoolTypeChoice';
import { sizingInput, validatePoolType } from './poolTypeModel';
import { PoolTypeRecommendations } from './PoolTypeRecommendations';
import { useReturnedError } from './ReviewErrors';
import { poolLayout } from './tuningFigures';

// Only the calculator uses the golden image's size (step 5 picks the golden VM itself): kept apart from the draft.
const GOLDEN_KEY = 'arcvsa.wizard.goldenGib';

/**
 * Step 4: the pool type, the NFS datastore, how many desktops (this step asks it: the sizing follows it;
 * step 5 names them and shows the count), and what each appliance will be, with the calculator's reasons.
 */
export function StepPoolType({ draft, update, next, back }: StepProps) {
  const inventory = useInventory(draft.vcenterId ?? 0);
  const { errors, refuse, clear } = useRefusal();
  // The api's refusal of the count (the cluster's room), sent back from Review: shown at the field until it changes.
  const returned = useReturnedError();
  const [countRefused, setCountRefused] = useState(returned?.field === 'pool.count' ? returned.message : undefined);
  const [goldenGib, setGoldenGib] = useState(() => localStorage.getItem(GOLDEN_KEY) ?? '40');
  const storage = draft.storage;
  const setStorage = (change: Partial<Draft['storage']>) => update((d) => ({ ...d, storage: { ...d.storage, ...change } }));
  const text = (key: 'datastoreName' | 'path') => ({
    name: key,
    value: storage[key],
    error: errors[key],
    onChange: (value: string) => {
      clear(key);
      setStorage({ [key]: value });
    },
  });

  const submit = () => {
    if (!refuse(validatePoolType(inventory.data, draft, goldenGib))) next();
  };

  return (
    <>
      <PoolTypeChoice storage={storage} onChange={setStorage} />
      <div className="form-grid">
        <ProtocolField value={storage.nfsVersion} onChange={(nfsVersion) => setStorage({ nfsVersion })} />
        <TextField label="Datastore name" hint="The NFS datastore every host of the cluster mounts." {...text('datastoreName')} />
        <TextField label="Exported path" hint="/<ZFS pool>/<dataset> the appliances build and export, e.g. /tank/vdi." {...text('path')} />
        <div className="form-row">
          <TextField
            label="Desktops in the pool"
            name="count"
            type="number"
            value={draft.desktops.count ? String(draft.desktops.count) : ''}
            hint="Spread over the appliances; the sizing below follows it."
            error={errors.count ?? countRefused}
            onChange={(value) => {
              clear('count');
              setCountRefused(undefined);
              update((d) => ({ ...d, desktops: { ...d.desktops, count: value === '' ? 0 : Number(value) } }));
            }}
          />
          <TextField
            label="Golden image (GiB)"
            name="goldenGib"
            type="number"
            value={goldenGib}
            hint="Its disk size, for the sizing."
            error={errors.goldenGib}
            onChange={(value) => {
              clear('goldenGib');
              setGoldenGib(value);
              localStorage.setItem(GOLDEN_KEY, value);
            }}
          />
        </div>
      </div>
      <PoolTypeRecommendations input={sizingInput(draft, goldenGib)} layout={poolLayout(draft)} />
      <div className="form-actions">
        <CdsButton action="outline" onClick={back}>
          Back
        </CdsButton>
        <CdsButton onClick={submit}>Next</CdsButton>
      </div>
    </>
  );
}
