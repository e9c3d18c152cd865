import type { DesktopPoolType } from '../../api/storage';

/**
 * The desktop pool types of the tuning profiles, in the wizard's order, in Horizon's words: non-persistent
 * (floating) or persistent (dedicated) desktops; linked or full clones, a full clone being arcvsa's ZFS
 * clone of the golden image's dataset (independent to vSphere, sharing blocks on the appliance).
 */
export const POOL_TYPES: { value: DesktopPoolType; label: string }[] = [
  { value: 'stateless-linked', label: 'Non-persistent, linked clones' },
  { value: 'persistent-linked', label: 'Persistent, linked clones' },
  { value: 'stateless-full', label: 'Non-persistent, full clones' },
  { value: 'persistent-full', label: 'Persistent, full clones' },
  { value: 'generic', label: 'Generic (no VDI assumptions)' },
];

export function poolTypeLabel(value: string): string {
  return POOL_TYPES.find((t) => t.value === value)?.label ?? value;
}
