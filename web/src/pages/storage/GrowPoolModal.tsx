import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ZfsPoolLayout, type ZfsPoolHealth, useDisks, useGrowPool } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { FreeDiskChoice } from './FreeDiskChoice';
import { LAYOUTS, describePool, freeDisks, growLayout, layoutError, layoutOf } from './poolModel';

/** Grow a pool by free LUNs: they become one more data vdev, in the pool's own layout by default. */
export function GrowPoolModal({ pool, onClose }: { pool: ZfsPoolHealth; onClose: () => void }) {
  const disks = useDisks();
  const grow = useGrowPool();
  const [layout, setLayout] = useState<ZfsPoolLayout>(growLayout(pool));
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const free = disks.data ? freeDisks(disks.data) : [];
  const current = layoutOf(pool);
  const hint = LAYOUTS.find((l) => l.value === layout)!.hint;

  const add = () => {
    const invalid = layoutError(layout, chosen.length);
    setError(invalid);
    // Only free disks are offered: a disk holding data is never overwritten from here.
    if (!invalid) grow.mutate({ name: pool.name, body: { devices: chosen, layout, force: false } }, { onSuccess: onClose });
  };

  return (
    <CdsModal aria-labelledby="grow-title" size="lg" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="grow-title" cds-text="title">
          Add LUNs to {pool.name}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <div className="destroy-form">
          <p>
            {pool.name} is a {describePool(pool).layout}. The LUNs chosen here become one more data vdev: the capacity
            grows at once and new writes spread over every vdev. A data vdev cannot be taken out of most pools again.
          </p>
          <SelectField
            label="Layout of the new LUNs"
            name="layout"
            value={layout}
            options={LAYOUTS}
            hint={layout === current ? hint : `${hint} The pool's data is ${current}: zpool refuses a different layout.`}
            onChange={(value) => setLayout(value as ZfsPoolLayout)}
            disabled={grow.isPending}
          />
          {disks.isPending && <Loading label="Looking for free disks" />}
          {disks.isError && <FormAlert>Could not read the disks. {messageOf(disks.error)}</FormAlert>}
          {disks.isSuccess && free.length === 0 && (
            <FormAlert status="warning">
              No free disk: present another LUN to this appliance, then read the disks again.
            </FormAlert>
          )}
          {free.length > 0 && (
            <FreeDiskChoice
              legend="Free LUNs"
              disks={free}
              selected={chosen}
              multiple
              error={error}
              onChange={(paths) => {
                setChosen(paths);
                setError(undefined);
              }}
            />
          )}
          {grow.isError && <FormAlert>{messageOf(grow.error)}</FormAlert>}
        </div>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={grow.isPending}>
            Cancel
          </CdsButton>
          <CdsButton
            onClick={add}
            disabled={grow.isPending || free.length === 0}
            loadingState={grow.isPending ? 'loading' : 'default'}
          >
            {chosen.length ? `Add ${chosen.length} ${chosen.length === 1 ? 'LUN' : 'LUNs'}` : 'Add LUNs'}
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
