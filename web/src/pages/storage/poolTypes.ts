import type { PoolType } from '../../api/storage';

/** The desktop pool types of the tuning profiles, in the wizard's order, with a person's words for them. */
export const POOL_TYPES: { value: PoolType; label: string }[] = [
  { value: 'stateless-linked', label: 'Stateless, linked clones' },
  { value: 'persistent-linked', label: 'Persistent, linked clones' },
  { value: 'stateless-full', label: 'Stateless, full clones' },
  { value: 'persistent-full', label: 'Persistent, full clones' },
  { value: 'generic', label: 'Generic (no VDI assumptions)' },
];

export function poolTypeLabel(value: string): string {
  return POOL_TYPES.find((t) => t.value === value)?.label ?? value;
}
