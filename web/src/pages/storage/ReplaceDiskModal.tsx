import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type ZfsPoolHealth, type Vdev, useDisks, useReplaceDisk } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { formatBytes } from '../../format';
import { FreeDiskChoice } from './FreeDiskChoice';
import { diskOfVdev, freeDisks } from './poolModel';

/** Replace one data LUN (failing, or being retired) by a free LUN at least as large; ZFS resilvers onto it. */
export function ReplaceDiskModal({ pool, vdev, onClose }: { pool: ZfsPoolHealth; vdev: Vdev; onClose: () => void }) {
  const disks = useDisks();
  const replace = useReplaceDisk();
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const old = disks.data ? diskOfVdev(vdev, disks.data) : undefined;
  const free = disks.data ? freeDisks(disks.data) : [];
  // zpool refuses a smaller device; when the old disk is gone its size is unknown and the api decides.
  const fitting = old ? free.filter((d) => d.size_bytes >= old.size_bytes) : free;
  const smaller = free.length - fitting.length;

  const confirm = () => {
    const invalid = chosen.length ? undefined : 'Pick the LUN that takes its place.';
    setError(invalid);
    if (!invalid && vdev.path) {
      replace.mutate(
        { name: pool.name, body: { old: vdev.path, new: chosen[0]!, force: false } },
        { onSuccess: onClose },
      );
    }
  };

  return (
    <CdsModal aria-labelledby="replace-title" size="lg" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="replace-title" cds-text="title">
          Replace {vdev.name} in {pool.name}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <div className="destroy-form">
          <p>
            ZFS copies the data of <code>{vdev.name}</code>
            {old && <> ({formatBytes(old.size_bytes)})</>} onto the new LUN: this is <strong>resilvering</strong>. The
            pool stays online and its datastores keep serving ESXi, a little slower until it ends; its progress shows
            in the pool&apos;s Last scan. Then the old LUN leaves the pool.
          </p>
          {disks.isPending && <Loading label="Looking for free disks" />}
          {disks.isError && <FormAlert>Could not read the disks. {messageOf(disks.error)}</FormAlert>}
          {disks.isSuccess && fitting.length === 0 && (
            <FormAlert status="warning">
              No free LUN {old ? `of ${formatBytes(old.size_bytes)} or more` : ''}: present one to this appliance, then
              read the disks again.
            </FormAlert>
          )}
          {fitting.length > 0 && (
            <FreeDiskChoice
              legend="Replacement LUN"
              disks={fitting}
              selected={chosen}
              multiple={false}
              error={error}
              onChange={(paths) => {
                setChosen(paths);
                setError(undefined);
              }}
            />
          )}
          {smaller > 0 && (
            <p className="muted small">
              {smaller} smaller free {smaller === 1 ? 'LUN is' : 'LUNs are'} not offered: a replacement must be at least as
              large.
            </p>
          )}
          {replace.isError && <FormAlert>{messageOf(replace.error)}</FormAlert>}
        </div>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={replace.isPending}>
            Cancel
          </CdsButton>
          <CdsButton
            onClick={confirm}
            disabled={replace.isPending || fitting.length === 0}
            loadingState={replace.isPending ? 'loading' : 'default'}
          >
            Replace
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
