import type { Draft } from './draft';

type Storage = Draft['storage'];

const PERSISTENCE: { value: Storage['persistence']; label: string; hint: string }[] = [
  { value: 'stateless', label: 'Stateless', hint: 'desktops are reset at log-off; user data lives elsewhere' },
  { value: 'persistent', label: 'Persistent', hint: 'each user keeps a desktop and its changes' },
];
const CLONE: { value: Storage['clone']; label: string; hint: string }[] = [
  { value: 'linked', label: 'Linked clones', hint: 'a delta disk per desktop over the shared golden image' },
  { value: 'full', label: 'Full clones', hint: 'a ZFS clone of the golden image per desktop: instant, blocks shared' },
];

function Group<T extends string>(props: {
  legend: string;
  name: string;
  value: T;
  choices: { value: T; label: string; hint: string }[];
  onChange: (value: T) => void;
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
    </fieldset>
  );
}

/** Stateless or persistent, linked or full clones: together they are the pool type the tuning follows. */
export function PoolTypeChoice({ storage, onChange }: { storage: Storage; onChange: (change: Partial<Storage>) => void }) {
  return (
    <div className="form-row pool-type-choice">
      <Group legend="Desktop persistence" name="persistence" value={storage.persistence} choices={PERSISTENCE} onChange={(persistence) => onChange({ persistence })} />
      <Group legend="Clones" name="clone" value={storage.clone} choices={CLONE} onChange={(clone) => onChange({ clone })} />
    </div>
  );
}
