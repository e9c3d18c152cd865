import { ApiError } from '../../api/errors';

// The api's own rules (api/users/schemas.py): checked here first so a mistake is named before any call.
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export type FieldErrors = Partial<Record<string, string>>;

export function usernameError(name: string): string | undefined {
  if (!name) return 'Enter a user name';
  if (name.length > 64) return 'Use at most 64 characters';
  if (!USERNAME.test(name)) return "Use letters, digits, '.', '_' or '-', starting with a letter or digit";
  return undefined;
}

export function passwordError(password: string): string | undefined {
  if (!password) return 'Enter a password';
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters`;
  return undefined;
}

export function confirmError(password: string, confirm: string): string | undefined {
  return password === confirm ? undefined : 'The two passwords differ';
}

/** Only the errors that are set (an empty object means the form is valid). */
export function compact(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).filter(([, v]) => v));
}

/** An api 4xx about one of `fields`, as {field: message}, so it shows beside that field; else null. */
export function apiFieldError(error: unknown, fields: readonly string[]): FieldErrors | null {
  if (error instanceof ApiError && error.field && fields.includes(error.field) && error.status < 500) {
    return { [error.field]: error.message };
  }
  return null;
}
