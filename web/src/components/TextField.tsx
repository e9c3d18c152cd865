import { CdsControlMessage } from '@cds/react/forms';
import { CdsInput } from '@cds/react/input';
import { CdsPassword } from '@cds/react/password';
import { useId } from 'react';

interface Props {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  type?: 'text' | 'password' | 'number';
  autoComplete?: string;
  disabled?: boolean;
  readOnly?: boolean;
  width?: 'short';
  autoFocus?: boolean;
}

/** A labelled Clarity input with its error (or hint) right under it, tied to the input for assistive tech. */
export function TextField({ label, name, value, onChange, error, hint, type = 'text', width, ...rest }: Props) {
  const id = useId();
  const message = error ?? hint;
  const input = (
    <input
      id={id}
      name={name}
      type={type}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      aria-invalid={error ? true : undefined}
      {...rest}
    />
  );
  const children = (
    <>
      <label htmlFor={id}>{label}</label>
      {input}
      {/* Clarity ids the message and points the control's aria-describedby at it (on slotchange); an id of
          our own would be re-applied on every render and leave aria-describedby pointing at nothing. */}
      {message && (
        <CdsControlMessage status={error ? 'error' : 'neutral'} data-field-message={name}>
          {message}
        </CdsControlMessage>
      )}
    </>
  );
  const common = {
    layout: 'vertical' as const,
    status: error ? ('error' as const) : ('neutral' as const),
    className: width === 'short' ? 'field field-short' : 'field',
    'data-field': name,
  };
  return type === 'password' ? <CdsPassword {...common}>{children}</CdsPassword> : <CdsInput {...common}>{children}</CdsInput>;
}
