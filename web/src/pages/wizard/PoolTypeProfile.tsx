import { type PoolType, useProfiles } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { poolTypeLabel } from '../storage/poolTypes';
import { formatValue } from '../storage/tuningModel';

/** The tuning profile of the chosen pool type: each dataset property and module choice with its why. */
export function PoolTypeProfile({ poolType }: { poolType: PoolType }) {
  const profiles = useProfiles();
  if (profiles.isPending) return <Loading label="Reading the tuning profiles" />;
  if (profiles.isError) {
    return <ErrorState title="Could not read the tuning profiles" error={profiles.error} onRetry={() => void profiles.refetch()} />;
  }
  const profile = profiles.data.find((p) => p.name === poolType);
  if (!profile) return <p className="muted">arcvsa has no tuning profile for {poolTypeLabel(poolType).toLowerCase()}.</p>;
  const rows = [
    ...Object.entries(profile.dataset)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([name, v]) => ({ name, kind: 'dataset property', value: String(v) })),
    ...Object.entries(profile.module).map(([name, v]) => ({ name, kind: 'module parameter', value: formatValue(name, v) })),
  ];
  return (
    <section aria-labelledby="pooltype-profile-title" data-testid="pooltype-profile" data-profile={profile.name}>
      <h3 id="pooltype-profile-title" cds-text="subsection">
        Tuning profile: {poolTypeLabel(profile.name)}
      </h3>
      <p>{profile.description}</p>
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table">
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
    </section>
  );
}
