import type { Profile } from '../../api/storage';
import { formatValue } from './tuningModel';

/** A tuning profile's dataset properties and module choices, each with its why (Tuning page and wizard). */
export function ProfileTable({ profile, testId }: { profile: Profile; testId?: string }) {
  const rows = [
    ...Object.entries(profile.dataset)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([name, v]) => ({ name, kind: 'dataset property', value: String(v) })),
    ...Object.entries(profile.module).map(([name, v]) => ({ name, kind: 'module parameter', value: formatValue(name, v) })),
  ];
  return (
    <div className="table-wrap">
      <table cds-table="border:outside border:row" className="data-table" data-testid={testId}>
        <thead>
          <tr>
            <th>Setting</th>
            <th>Kind</th>
            <th>Value</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.kind}-${r.name}`}>
              <th scope="row">
                <code>{r.name}</code>
              </th>
              <td className="muted">{r.kind}</td>
              <td className="nowrap">{r.value}</td>
              <td>{profile.why[r.name] ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
