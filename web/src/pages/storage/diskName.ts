import type { Disk } from '../../api/storage';

/** What a person types to confirm a wipe: the last part of the disk's stable path (virtio-lun0), as the api checks it. */
export function diskName(disk: Disk): string {
  return disk.path.slice(disk.path.lastIndexOf('/') + 1);
}
