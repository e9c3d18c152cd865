import { CdsControlMessage } from '@cds/react/forms';
import { CdsTextarea } from '@cds/react/textarea';
import { type ChangeEvent, useId } from 'react';

interface Props {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint: string;
  disabled?: boolean;
}

/** PEM text: pasted, or read from a file picked here (the file never leaves the browser but as this text). */
export function PemField({ label, name, value, onChange, error, hint, disabled }: Props) {
  const id = useId();
  const messageId = `${id}-message`;
  const load = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) void file.text().then(onChange);
    event.target.value = '';
  };
  return (
    <div className="pem-field">
      <CdsTextarea layout="vertical" status={error ? 'error' : 'neutral'} className="field" data-field={name}>
        <label htmlFor={id}>{label}</label>
        <textarea
          id={id}
          name={name}
          value={value}
          rows={6}
          spellCheck={false}
          className="mono"
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={messageId}
          disabled={disabled}
        />
        <CdsControlMessage id={messageId} status={error ? 'error' : 'neutral'} data-field-message={name}>
          {error ?? hint}
        </CdsControlMessage>
      </CdsTextarea>
      <label className="file-pick">
        <span className="muted small">or read it from a file: </span>
        <input type="file" accept=".pem,.crt,.cer,.key,.txt" onChange={load} disabled={disabled} aria-label={`${label} from a file`} />
      </label>
    </div>
  );
}
