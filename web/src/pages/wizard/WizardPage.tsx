import { useEffect } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router';
import { useDeployments } from '../../api/deployments';
import { PageHeader } from '../../components/PageHeader';
import { EMPTY, STEPS, type StepId, type StepProps, useDraft } from './draft';
import { StepBackend } from './StepBackend';
import { StepDeploy } from './StepDeploy';
import { StepDesktops } from './StepDesktops';
import { StepPlacement } from './StepPlacement';
import { StepPoolType } from './StepPoolType';
import { ReviewReturned } from './ReviewReturned';
import { StepReview } from './StepReview';
import { StepVCenter } from './StepVCenter';
import { freeNames } from './fromPlan';
import { WizardSteps } from './WizardSteps';

const VIEWS: Record<StepId, (props: StepProps) => React.ReactNode> = {
  vcenter: StepVCenter,
  placement: StepPlacement,
  backend: StepBackend,
  pooltype: StepPoolType,
  desktops: StepDesktops,
  review: StepReview,
  deploy: StepDeploy,
};

/**
 * The deployment wizard: one step per URL (/deploy/<step>), each validating its answers before the
 * next is reachable. The answers are saved as they change, so a reload lands on the same step with them.
 */
export function WizardPage() {
  const { step } = useParams();
  const navigate = useNavigate();
  const { draft, update } = useDraft();
  // A new draft beside stored deployments numbers its appliances on after theirs, and takes a datastore
  // name none of them uses (names are one deployment's alone), unless the admin changed it already.
  const deployments = useDeployments();
  const unnumbered = draft.deploymentId === null && draft.firstAppliance === undefined;
  useEffect(() => {
    if (!unnumbered || !deployments.data) return;
    const free = freeNames(deployments.data);
    update((d) => ({
      ...d,
      firstAppliance: free.firstAppliance,
      storage: d.storage.datastoreName === EMPTY.storage.datastoreName ? { ...d.storage, datastoreName: free.datastoreName } : d.storage,
    }));
  }, [unnumbered, deployments.data, update]);
  const index = STEPS.findIndex((s) => s.id === step);
  if (index < 0) return <Navigate to={`/deploy/${STEPS[Math.min(draft.reached, STEPS.length - 1)]!.id}`} replace />;
  if (index > draft.reached) return <Navigate to={`/deploy/${STEPS[draft.reached]!.id}`} replace />;

  const View = VIEWS[STEPS[index]!.id];
  const go = (to: number) => navigate(`/deploy/${STEPS[to]!.id}`);
  const next = () => {
    update((d) => ({ ...d, reached: Math.max(d.reached, index + 1) }));
    go(index + 1);
  };
  const back = () => go(Math.max(0, index - 1));

  return (
    <>
      <PageHeader
        title="Deploy a desktop pool"
        subtitle="arcvsa appliances on the ESXi hosts, an accelerated NFS datastore on the SAN LUNs, and the desktops on it."
      />
      <div className="wizard-layout">
        <WizardSteps current={index} reached={draft.reached} />
        <section className="wizard-body card" aria-labelledby="wizard-step-title">
          <h2 id="wizard-step-title" cds-text="section">
            {index + 1}. {STEPS[index]!.title}
          </h2>
          <ReviewReturned step={STEPS[index]!.id} draft={draft} />
          <View draft={draft} update={update} next={next} back={back} />
        </section>
      </div>
    </>
  );
}
