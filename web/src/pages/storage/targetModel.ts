// The target form's own checks (appliance/control/names.py and iscsi.py check again).

export const IQN = /^iqn\.\d{4}-\d{2}\.[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[a-z0-9._-]{1,128})?$/;
export const CHAP_USER = /^[A-Za-z][A-Za-z0-9_-]{0,47}$/;
export const CHAP_SECRET = /^[A-Za-z0-9_.+-]{12,64}$/;
const COMPONENT = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export interface TargetDraft {
  iqn: string;
  zvol: string; // an existing zvol, or NEW_ZVOL
  newName: string; // pool/name of the zvol to create
  newSizeGib: string;
  initiators: string;
  chap: boolean;
  chapUser: string;
  chapSecret: string;
}

export const NEW_ZVOL = '__new__';

export type TargetErrors = Partial<Record<'iqn' | 'zvol' | 'newName' | 'newSizeGib' | 'initiators' | 'chapUser' | 'chapSecret', string>>;

export function parseList(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((a) => a.trim().toLowerCase()).filter(Boolean))];
}

export function validateTarget(d: TargetDraft): TargetErrors {
  const e: TargetErrors = {};
  if (!IQN.test(d.iqn.trim())) e.iqn = 'An IQN in lower case: iqn.yyyy-mm.reversed.domain:name';
  if (!d.zvol) e.zvol = 'Pick the zvol behind the LUN, or create one.';
  if (d.zvol === NEW_ZVOL) {
    const [pool, ...rest] = d.newName.trim().split('/');
    if (!pool || rest.length === 0 || !rest.every((p) => COMPONENT.test(p))) e.newName = 'pool/name, e.g. tank/lun0';
    const gib = Number(d.newSizeGib);
    if (!Number.isFinite(gib) || gib <= 0) e.newSizeGib = 'A size in GiB, e.g. 500';
  }
  const initiators = parseList(d.initiators);
  const bad = initiators.find((i) => !IQN.test(i));
  if (initiators.length === 0) e.initiators = "Enter the IQN of at least one ESXi host's iSCSI adapter.";
  else if (bad) e.initiators = `"${bad}" is not an IQN.`;
  if (d.chap) {
    if (!CHAP_USER.test(d.chapUser)) e.chapUser = 'Start with a letter; letters, digits, _ or - (48 at most).';
    if (!CHAP_SECRET.test(d.chapSecret)) e.chapSecret = '12 to 64 letters, digits or _ . + -';
  }
  return e;
}

/** Bytes for a zvol of ``gib`` GiB, rounded down to the 16K volblocksize. */
export function zvolBytes(gib: number): number {
  const block = 16 * 1024;
  return Math.floor((gib * 1024 ** 3) / block) * block;
}
