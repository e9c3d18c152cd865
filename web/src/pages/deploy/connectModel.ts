// The "Connect to vCenter" form: its fields, client-side checks and where api errors go.

export interface ConnectDraft {
  name: string;
  host: string;
  port: string;
  username: string;
  password: string;
}

export type ConnectField = keyof ConnectDraft;
export type FieldErrors = Partial<Record<ConnectField, string>>;

export const emptyDraft: ConnectDraft = { name: '', host: '', port: '443', username: '', password: '' };

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/;

/** The same rules the api enforces, checked before anything is sent. */
export function validate(draft: ConnectDraft): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Enter a name for this vCenter.';
  else if (name.length > 64) errors.name = 'Use at most 64 characters.';
  else if (!NAME.test(name)) errors.name = 'Use letters, digits, spaces, dots, dashes and underscores; start with a letter or digit.';
  const host = draft.host.trim();
  if (!host) errors.host = 'Enter the vCenter address (DNS name or IP).';
  else if (/\s|\/|^https?:/i.test(host)) errors.host = 'Enter only the host name or IP address, without https:// or a path.';
  const port = draft.port.trim();
  if (!port) errors.port = 'Enter the HTTPS port.';
  else if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) errors.port = 'Enter a port from 1 to 65535.';
  if (!draft.username.trim()) errors.username = 'Enter the vCenter user name.';
  if (!draft.password) errors.password = 'Enter the password.';
  return errors;
}

const FIELDS: readonly string[] = ['name', 'host', 'port', 'username', 'password'];

/** The form field an api error names, or null when it belongs to the form as a whole. */
export function fieldOf(apiField: string | null): ConnectField | null {
  return apiField && FIELDS.includes(apiField) ? (apiField as ConnectField) : null;
}
