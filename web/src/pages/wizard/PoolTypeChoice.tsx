import type { Draft } from './draft';

type Storage = Draft['storage'];

// Horizon's words: user assignment (floating, dedicated) and clone type. arcvsa makes linked clones through
// vSphere, and a full clone as a ZFS clone of the golden image's dataset on the appliance.
const PERSISTENCE: { value: Storage['persistence']; label: string; hint: string }[] = [
  { value: 'stateless', label: 'Non-persistent (floating)', hint: 'desktops are refreshed at log-off; user data lives in profiles elsewhere' },
  { value: 'persistent', label: 'Persistent (dedicated)', hint: 'each user keeps a desktop and its changes' },
];
const CLONE: { value: Storage['clone']; label: string; hint: string }[] = [
  {
    value: 'linked',
    label: 'Linked clones',
    hint: 'each desktop is a vSphere linked clone: its own delta disk over a snapshot of the golden image, which every desktop reads',
  },
  {
    value: 'full',
    label: 'Full clones (space-efficient: ZFS clones of the golden image)',
    hint:
      'in Horizon a full clone is an independent copy of the golden image; arcvsa makes each one as a ZFS clone of the golden ' +
      'image’s dataset on the appliance: vSphere sees an independent VM, made in seconds, sharing the golden’s blocks until it writes its own',
  },
];

function Group<T extends string>(props: {
  legend: string;
  name: string;
  value: T;
  choices: { value: T; label: string; hint: string }[];
  onChange: (value: T) => void;
  note?: string;
}) {
  return (
    <fieldset className="choice-group">
      <legend>{props.legend}</legend>
      {props.choices.map((c) => (
        <label key={c.value} className="checkbox-line">
          <input type="radio" name={props.name} value={c.value} checked={props.value === c.value} onChange={() => props.onChange(c.value)} />
          <span>
            {c.label} <span className="muted">— {c.hint}</span>
          </span>
        </label>
      ))}
      {props.note && <p className="muted small choice-note">{props.note}</p>}
    </fieldset>
  );
}

/** User assignment and clone type, as Horizon names them: together they are the pool type the tuning follows. */
export function PoolTypeChoice({ storage, onChange }: { storage: Storage; onChange: (change: Partial<Storage>) => void }) {
  return (
    <div className="form-row pool-type-choice">
      <Group legend="User assignment" name="persistence" value={storage.persistence} choices={PERSISTENCE} onChange={(persistence) => onChange({ persistence })} />
      <Group
        legend="Clone type"
        name="clone"
        value={storage.clone}
        choices={CLONE}
        onChange={(clone) => onChange({ clone })}
        note="Instant clones are made by Horizon itself, not by arcvsa. Their I/O is that of non-persistent linked clones (one golden image every desktop reads, a small delta each): that pool type tunes a datastore for them."
      />
    </div>
  );
}
