import { CdsControlMessage } from '@cds/react/forms';
import { CdsSelect } from '@cds/react/select';
import { useId } from 'react';

interface Option {
  value: string;
  label: string;
}

interface Props {
  label: string;
  name: string;
  value: string;
  options: readonly Option[];
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  disabled?: boolean;
}

/** A labelled Clarity select with its error (or hint) under it, like TextField. */
export function SelectField({ label, name, value, options, onChange, error, hint, disabled }: Props) {
  const id = useId();
  const message = error ?? hint;
  return (
    <CdsSelect layout="vertical" status={error ? 'error' : 'neutral'} className="field" data-field={name}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        disabled={disabled}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {/* Clarity ids the message and points the control's aria-describedby at it (on slotchange); an id of
          our own would be re-applied on every render and leave aria-describedby pointing at nothing. */}
      {message && (
        <CdsControlMessage status={error ? 'error' : 'neutral'} data-field-message={name}>
          {message}
        </CdsControlMessage>
      )}
    </CdsSelect>
  );
}
