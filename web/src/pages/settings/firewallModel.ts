import { ApiError } from '../../api/errors';
import { type FieldErrors, apiFieldError } from './userModel';

// The api's own limit (api/firewall/schemas.py); whether each line is a network is the api's to say.
export const NETWORKS_MAX = 64;
export const FIELDS = ['management', 'iscsi'] as const;

/** The networks typed one per line (spaces and commas separate too), each once, in the order typed. */
export function parseNetworks(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
}

export function networksError(networks: string[], required: boolean): string | undefined {
  if (required && networks.length === 0) return 'Enter at least one network: yours, or your own address';
  if (networks.length > NETWORKS_MAX) return `At most ${NETWORKS_MAX} networks`;
  return undefined;
}

/**
 * A refusal of the management or iSCSI networks as that field's message. A validation answer names its
 * field in front of pydantic's words ("management: Value error, not a network: …"): beside the field,
 * both are noise.
 */
export function firewallFieldErrors(error: unknown): FieldErrors | null {
  const found = apiFieldError(error, FIELDS);
  if (!found || !(error instanceof ApiError) || !error.field) return found;
  const prefix = `${error.field}: `;
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const bare = text.replace(/^Value error, /, '');
  return { [error.field]: bare.charAt(0).toUpperCase() + bare.slice(1) };
}
