import { PageHeader } from '../../components/PageHeader';
import { CalculatorForm } from './CalculatorForm';
import { ModuleParameters } from './ModuleParameters';
import { ProfilesSection } from './ProfilesSection';

/** Tuning: the sizing calculator first (what most visitors come for), then the profiles and live parameters. */
export function TuningPage() {
  return (
    <>
      <PageHeader
        title="Tuning"
        subtitle="Size the ARC, L2ARC and SLOG for a desktop pool, and see why each value is what it is."
      />
      <CalculatorForm />
      <ProfilesSection />
      <ModuleParameters />
    </>
  );
}
