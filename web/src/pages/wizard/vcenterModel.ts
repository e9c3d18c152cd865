// Step 1's rule: a vCenter connection that still exists is chosen.

export interface SavedVCenter {
  id: number;
}

export function validateVCenter(chosen: number | null, saved: readonly SavedVCenter[]): Record<string, string> {
  if (chosen === null) return { vcenter: 'Choose a vCenter, or add one below.' };
  if (!saved.some((vc) => vc.id === chosen)) {
    return { vcenter: 'That vCenter connection no longer exists: choose another, or add it again.' };
  }
  return {};
}
