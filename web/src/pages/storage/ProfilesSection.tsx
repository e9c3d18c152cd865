import { useState } from 'react';
import { useProfiles } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { POOL_TYPES, poolTypeLabel } from './poolTypes';
import { formatValue } from './tuningModel';

/** One pool type's profile: the dataset properties and module choices it makes, each with its why. */
export function ProfilesSection() {
  const profiles = useProfiles();
  const [chosen, setChosen] = useState<string>(POOL_TYPES[0]!.value);
  const profile = profiles.data?.find((p) => p.name === chosen) ?? profiles.data?.[0];
  const rows = profile
    ? [
        ...Object.entries(profile.dataset)
          .filter(([, v]) => v !== null && v !== undefined)
          .map(([k, v]) => ({ name: k, kind: 'dataset', value: String(v) })),
        ...Object.entries(profile.module).map(([k, v]) => ({ name: k, kind: 'module', value: formatValue(k, v) })),
      ]
    : [];
  return (
    <section className="card storage-section" aria-labelledby="profiles-title">
      <h2 id="profiles-title" cds-text="section">
        Profiles
      </h2>
      {profiles.isPending && <Loading label="Reading the profiles" />}
      {profiles.isError && <ErrorState title="Could not read the profiles" error={profiles.error} onRetry={() => void profiles.refetch()} />}
      {profile && (
        <>
          <div className="toolbar">
            <SelectField
              label="Pool type"
              name="profile"
              value={profile.name}
              options={(profiles.data ?? []).map((p) => ({ value: p.name, label: poolTypeLabel(p.name) }))}
              onChange={setChosen}
            />
          </div>
          <p data-testid="profile-description">{profile.description}</p>
          <div className="table-wrap">
            <table cds-table="border:outside border:row" className="data-table" data-testid="profile-table">
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
                    <td className="muted">{r.kind === 'dataset' ? 'dataset property' : 'module parameter'}</td>
                    <td className="nowrap">{r.value}</td>
                    <td>{profile.why[r.name] ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
