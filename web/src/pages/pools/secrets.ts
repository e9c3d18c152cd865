import { useState } from 'react';
import type { JobSecrets } from '../../api/deployments';
import { ApiError } from '../../api/errors';

// A job that needs a secret the browser does not keep (the appliances' admin password, Horizon's) is started
// without it; the api answers 422 secret_required naming the field, and the user is asked for it. What the
// user types goes with that one request (and its retries for a second missing secret), never with a later one.

export type SecretField = keyof JobSecrets;

export const SECRET_LABELS: Record<SecretField, string> = {
  admin_password: 'Appliance admin password',
  horizon_password: 'Horizon administrator password',
};

/** The secret a refusal asks for, if it is one. */
export function secretFieldOf(error: unknown): SecretField | null {
  if (!(error instanceof ApiError) || error.code !== 'secret_required') return null;
  return error.field === 'admin_password' || error.field === 'horizon_password' ? error.field : null;
}

/** An error to show as an error: a missing secret is asked for instead. */
export function shownError(error: unknown): unknown {
  return secretFieldOf(error) ? null : error;
}

/** Starts a job with the secrets given so far; calls `refused` with the error when the api refuses it. */
export type Start = (secrets: JobSecrets, refused: (error: unknown) => void) => void;

export interface Ask {
  field: SecretField;
  /** The api's words: which job needs it. */
  message: string;
  submit: (value: string) => void;
  cancel: () => void;
}

/** `run(start)` starts a job, and asks for each secret the api says it lacks before starting it again. */
export function useSecretAsk() {
  const [ask, setAsk] = useState<Ask | null>(null);
  function run(start: Start, given: JobSecrets = {}) {
    start(given, (error) => {
      const field = secretFieldOf(error);
      if (!field) return;
      setAsk({
        field,
        message: (error as ApiError).message,
        submit: (value) => {
          setAsk(null);
          run(start, { ...given, [field]: value });
        },
        cancel: () => setAsk(null),
      });
    });
  }
  return { run, ask };
}
