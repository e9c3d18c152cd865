import { useLocation } from 'react-router';
import type { StepId } from './draft';

// When the api refuses the plan (on save or on /plan) it names the field as a dotted plan path
// ('pool.count', 'fleet.appliances.0.host', 'nfs.version'). The Review step sends the admin back to the
// step that asks for that field, with the message in the navigation state; the step shows it there.

export interface ReturnedError {
  /** The plan path the api named, without a leading 'plan.' */
  field: string;
  message: string;
}

const POOL_TYPE_FIELDS = new Set(['pool.datastore', 'pool.persistence', 'pool.clone', 'pool.full_copy', 'pool.count']);

/** The wizard step that asks for a plan field; null for the plan as a whole (Review shows it). */
export function stepOfField(apiField: string): StepId | null {
  const field = apiField.replace(/^plan\.?/, '');
  if (!field) return null;
  const top = field.split('.')[0] ?? '';
  // the vCenter connection's own faults (login, address, certificate) name its fields
  if (['vcenter_id', 'password', 'host', 'thumbprint', 'username'].includes(top)) return 'vcenter';
  if (top === 'datacenter' || top === 'cluster' || top === 'appliances') return 'placement';
  if (/^fleet\.appliances\.\d+\.host$/.test(field)) return 'placement';
  if (top === 'fleet' || field === 'nfs.server') return 'backend';
  if (top === 'nfs' || POOL_TYPE_FIELDS.has(field)) return 'pooltype';
  return 'desktops'; // name, pool.*, horizon.*
}

/** The api's error sent back to this step by Review, if any (it goes with the next navigation). */
export function useReturnedError(): ReturnedError | null {
  const state: unknown = useLocation().state;
  if (state && typeof state === 'object' && 'returned' in state) {
    const returned = (state as { returned: unknown }).returned;
    if (returned && typeof returned === 'object' && 'field' in returned && 'message' in returned) {
      return returned as ReturnedError;
    }
  }
  return null;
}
