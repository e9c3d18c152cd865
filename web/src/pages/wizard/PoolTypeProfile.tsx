import { type PoolType, useProfiles } from '../../api/storage';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { poolTypeLabel } from '../storage/poolTypes';
import { ProfileTable } from '../storage/ProfileTable';

/** The tuning profile of the chosen pool type: each dataset property and module choice with its why. */
export function PoolTypeProfile({ poolType }: { poolType: PoolType }) {
  const profiles = useProfiles();
  if (profiles.isPending) return <Loading label="Reading the tuning profiles" />;
  if (profiles.isError) {
    return <ErrorState title="Could not read the tuning profiles" error={profiles.error} onRetry={() => void profiles.refetch()} />;
  }
  const profile = profiles.data.find((p) => p.name === poolType);
  if (!profile) return <p className="muted">arcvsa has no tuning profile for {poolTypeLabel(poolType).toLowerCase()}.</p>;
  return (
    <section aria-labelledby="pooltype-profile-title" data-testid="pooltype-profile" data-profile={profile.name}>
      <h3 id="pooltype-profile-title" cds-text="subsection">
        Tuning profile: {poolTypeLabel(profile.name)}
      </h3>
      <p>{profile.description}</p>
      <ProfileTable profile={profile} />
    </section>
  );
}
