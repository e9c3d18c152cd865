import { TextField } from '../../components/TextField';

interface Props {
  prefix: string;
  mtu: string;
  errors: Record<string, string>;
  set: (key: 'storagePrefix' | 'storageMtu', value: string) => void;
}

/** What every appliance's storage NIC shares, once a storage port group is chosen (each has its own address, per host below). */
export function BackendStorageFields({ prefix, mtu, errors, set }: Props) {
  return (
    <div className="form-grid">
      <div className="form-row">
        <TextField
          label="Storage prefix"
          name="storagePrefix"
          width="short"
          value={prefix}
          hint="Prefix length of the storage network, 1 to 32 (24 for 255.255.255.0). No gateway."
          error={errors.storagePrefix}
          onChange={(value) => set('storagePrefix', value)}
        />
        <TextField
          label="Storage MTU"
          name="storageMtu"
          value={mtu}
          hint="1280 to 9000. 9000 (jumbo frames) only when every hop carries them: the port group, the physical switches and the hosts' VMkernel ports."
          error={errors.storageMtu}
          onChange={(value) => set('storageMtu', value)}
        />
      </div>
    </div>
  );
}
