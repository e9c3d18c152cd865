import { CdsControlMessage } from '@cds/react/forms';
import { CdsTextarea } from '@cds/react/textarea';
import { useId } from 'react';

interface Props {
  value: string;
  error?: string;
  onChange: (value: string) => void;
  label?: string;
  hint?: string;
  name?: string;
}

/** A list typed one per line: ESXi host addresses (or initiator IQNs), with its error under it. */
export function HostsField({
  value,
  error,
  onChange,
  label = 'ESXi host addresses',
  hint = 'One IP address per line: the VMkernel address each host mounts NFS from.',
  name = 'clients',
}: Props) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <CdsTextarea layout="vertical" status={error ? 'error' : 'neutral'} className="field" data-field={name}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        rows={3}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={messageId}
        spellCheck={false}
      />
      <CdsControlMessage id={messageId} status={error ? 'error' : 'neutral'} data-field-message={name}>
        {error ?? hint}
      </CdsControlMessage>
    </CdsTextarea>
  );
}
