import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/errors';
import { type Disk, useWipeDisk } from '../../api/storage';
import { TextField } from '../../components/TextField';
import { diskName } from './diskName';

/**
 * Wiping clears a disk's ZFS labels and partition table (an exported pool's, another system's): whatever it
 * held is lost, so the disk's name is typed out first. The api refuses a disk an imported pool uses.
 */
export function WipeDiskModal({ disk, onClose, onWiped }: { disk: Disk; onClose: () => void; onWiped: (disk: Disk) => void }) {
  const wipe = useWipeDisk();
  const [typed, setTyped] = useState('');
  const name = diskName(disk);
  const confirm = () => {
    if (typed === name) wipe.mutate({ path: disk.path, confirm: typed }, { onSuccess: onWiped });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm();
  };
  return (
    <CdsModal aria-labelledby="wipe-title" onCloseChange={onClose} closable>
      <CdsModalHeader>
        <h2 id="wipe-title" cds-text="title">
          Wipe disk {name}?
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form className="destroy-form" onSubmit={submit} noValidate>
          <p>
            <strong>Everything on {disk.path} is lost</strong>: it {disk.in_use ?? 'holds data'}. Its ZFS labels
            {disk.zfs_labels && disk.zfs_labels.length > 0 ? ` (${disk.zfs_labels.join(', ')})` : ''} and its partition
            table are cleared, so a pool can use it without force.
          </p>
          <TextField label={`Type ${name} to confirm`} name="confirm" value={typed} onChange={setTyped} autoComplete="off" />
          {wipe.isError && (
            <p className="text-danger" role="alert">
              {messageOf(wipe.error)}
            </p>
          )}
        </form>
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={onClose} disabled={wipe.isPending}>
            Cancel
          </CdsButton>
          <CdsButton
            status="danger"
            onClick={confirm}
            disabled={typed !== name || wipe.isPending}
            loadingState={wipe.isPending ? 'loading' : 'default'}
          >
            Wipe {name}
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
