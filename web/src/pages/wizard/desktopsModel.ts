import type { Draft } from './draft';

// The Desktops step's rules, mirroring provisioning/plan.py (the api checks them again): a deployment id,
// a naming pattern with one run of '#' (the zero-padded desktop number), names free in vCenter.

export type Desktops = Draft['desktops'];
export type Horizon = NonNullable<Desktops['horizon']>;
export type DesktopField =
  | 'name'
  | 'count'
  | 'naming'
  | 'firstNumber'
  | 'folder'
  | 'goldenVm'
  | 'snapshot'
  | 'vcpus'
  | 'memoryMb'
  | 'customizationSpec'
  | `horizon.${keyof Horizon}`;
export type DesktopErrors = Partial<Record<DesktopField, string>>;

const OWNER_ID = /^[a-z0-9][a-z0-9._-]*$/;
const NAMING = /^[A-Za-z0-9][A-Za-z0-9._-]*#+[A-Za-z0-9._-]*$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]*$/;
const FOLDER = /^[A-Za-z0-9][A-Za-z0-9 ._-]*(\/[A-Za-z0-9][A-Za-z0-9 ._-]*)*$/;
const ENDPOINT = /^[A-Za-z0-9.\-[\]:]+:[0-9]{1,5}$/;
export const MAX_DESKTOPS = 4000;

/** The desktop named by `naming` for `number`: the run of '#' becomes the zero-padded number. */
export function desktopName(naming: string, number: number): string {
  const run = /#+/.exec(naming);
  if (!run) return naming;
  return naming.slice(0, run.index) + String(number).padStart(run[0].length, '0') + naming.slice(run.index + run[0].length);
}

/** Every name of the pool, in number order. */
export function desktopNames(d: Pick<Desktops, 'naming' | 'count' | 'firstNumber'>): string[] {
  const count = Math.max(0, Math.min(d.count, MAX_DESKTOPS));
  return Array.from({ length: count }, (_, i) => desktopName(d.naming, d.firstNumber + i));
}

function validNaming(naming: string, d: Desktops): string | undefined {
  if (!naming.trim()) return 'Give a naming pattern, e.g. vdi-###.';
  if (!naming.includes('#')) return "The pattern needs a run of '#' for the desktop number, e.g. vdi-###.";
  if ((naming.match(/#+/g) ?? []).length > 1) return "Use one run of '#' only, e.g. vdi-###.";
  if (!NAMING.test(naming)) return "Letters, digits, '.', '_' and '-' around one run of '#'; start with a letter or digit.";
  if (naming.length > 64) return 'At most 64 characters.';
  const width = /#+/.exec(naming)![0].length;
  const last = d.firstNumber + d.count - 1;
  if (Number.isFinite(last) && String(last).length > width) {
    return `${'#'.repeat(width)} holds numbers up to ${'9'.repeat(width)}: the last desktop is number ${last}. Add a '#'.`;
  }
  return undefined;
}

function required(value: string, what: string, pattern: RegExp, rule: string): string | undefined {
  if (!value.trim()) return `Give ${what}.`;
  return pattern.test(value) ? undefined : rule;
}

const NAME_RULE = "Letters, digits, spaces, '.', '_' and '-'; start with a letter or digit.";

function validHorizon(h: Horizon): DesktopErrors {
  const errors: DesktopErrors = {};
  if (!h.endpoint.trim()) errors['horizon.endpoint'] = 'Give the Connection Server as host:port, e.g. horizon.example.com:443.';
  else if (!ENDPOINT.test(h.endpoint)) errors['horizon.endpoint'] = 'Write it as host:port, e.g. horizon.example.com:443.';
  if (!h.username.trim()) errors['horizon.username'] = 'Give the Horizon administrator.';
  if (!h.domain.trim()) errors['horizon.domain'] = "Give the administrator's domain.";
  if (!h.password) errors['horizon.password'] = "Give the administrator's password (it is never saved in the browser).";
  if (!h.vcenter.trim()) errors['horizon.vcenter'] = "Give the vCenter's name as Horizon lists it.";
  return errors;
}

/**
 * Everything wrong with the step's answers, by field. `taken` is the VM names the vCenter already has:
 * a planned desktop name among them is refused (the api would refuse it too, once asked).
 */
export function validateDesktops(d: Desktops, taken: ReadonlySet<string>): DesktopErrors {
  const errors: DesktopErrors = {};
  const name = required(d.name, 'the deployment a name', OWNER_ID, "Lower-case letters, digits, '.', '_' and '-'; start with a letter or digit.");
  if (name) errors.name = name;
  else if (d.name.length > 64) errors.name = 'At most 64 characters.';
  // The count is asked in step 4 (the sizing follows it); this step shows it, so its message says where to change it.
  if (!Number.isInteger(d.count) || d.count < 1) errors.count = 'Set how many desktops in step 4: at least 1.';
  else if (d.count > MAX_DESKTOPS) errors.count = `At most ${MAX_DESKTOPS} desktops in one pool: change it in step 4.`;
  if (!Number.isInteger(d.firstNumber) || d.firstNumber < 0) errors.firstNumber = 'A whole number, 0 or more.';
  const naming = validNaming(d.naming, d);
  if (naming) errors.naming = naming;
  else if (!errors.count && !errors.firstNumber) {
    const clash = desktopNames(d).filter((n) => taken.has(n));
    if (clash.length) {
      const shown = clash.slice(0, 3).join(', ') + (clash.length > 3 ? ` and ${clash.length - 3} more` : '');
      errors.naming = `${clash.length === 1 ? 'A VM named' : 'VMs named'} ${shown} ${clash.length === 1 ? 'exists' : 'exist'} already: choose another pattern or first number.`;
    }
  }
  const folder = required(d.folder, 'a VM folder', FOLDER, "Folder names of letters, digits, spaces, '.', '_' and '-', separated by '/'.");
  if (folder) errors.folder = folder;
  if (!d.goldenVm) errors.goldenVm = 'Pick the golden VM the desktops are cloned from.';
  else if (!NAME.test(d.goldenVm)) errors.goldenVm = `arcvsa cannot clone from this VM name: ${NAME_RULE}`;
  if (!d.snapshot) errors.snapshot = 'Pick the snapshot to clone from.';
  else if (!NAME.test(d.snapshot)) errors.snapshot = `Rename the snapshot in vCenter: ${NAME_RULE}`;
  if (!Number.isInteger(d.vcpus) || d.vcpus < 1 || d.vcpus > 64) errors.vcpus = 'From 1 to 64 vCPUs.';
  if (!Number.isInteger(d.memoryMb) || d.memoryMb < 256) errors.memoryMb = 'At least 256 MiB.';
  if (d.customizationSpec && !NAME.test(d.customizationSpec)) errors.customizationSpec = NAME_RULE;
  return d.horizon ? { ...errors, ...validHorizon(d.horizon) } : errors;
}

/** The api names plan fields ('pool.count', 'horizon.endpoint'); this step's field for one, if it has it. */
export function desktopFieldOf(apiField: string | null | undefined): DesktopField | null {
  if (!apiField) return null;
  const plain: Record<string, DesktopField> = {
    name: 'name',
    'plan.name': 'name',
    'pool.name': 'name',
    'pool.count': 'count',
    'pool.naming': 'naming',
    'pool.first_number': 'firstNumber',
    'pool.folder': 'folder',
    'pool.golden_vm': 'goldenVm',
    'pool.snapshot': 'snapshot',
    'pool.vcpus': 'vcpus',
    'pool.memory_mb': 'memoryMb',
    'pool.customization_spec': 'customizationSpec',
  };
  const field = apiField.replace(/^plan\.(?=pool|horizon)/, '');
  if (plain[field]) return plain[field];
  const horizon = /^horizon\.(endpoint|username|domain|password|vcenter)$/.exec(field);
  return horizon ? (`horizon.${horizon[1]}` as DesktopField) : null;
}
