import { useState } from 'react';
import { useProfiles } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { POOL_TYPES, poolTypeLabel } from './poolTypes';
import { ProfileTable } from './ProfileTable';

/** One pool type's profile: the dataset properties and module choices it makes, each with its why. */
export function ProfilesSection() {
  const profiles = useProfiles();
  const [chosen, setChosen] = useState<string>(POOL_TYPES[0]!.value);
  const profile = profiles.data?.find((p) => p.name === chosen) ?? profiles.data?.[0];
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
          <ProfileTable profile={profile} testId="profile-table" />
        </>
      )}
    </section>
  );
}
