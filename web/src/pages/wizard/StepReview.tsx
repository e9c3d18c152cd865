import { CdsButton } from '@cds/react/button';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, messageOf } from '../../api/errors';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { SecretDialog } from '../pools/SecretAsk';
import { useStartDeploy } from './deployStart';
import { type StepProps } from './draft';
import { ReviewDiff } from './ReviewDiff';
import { stepOfField } from './ReviewErrors';
import { useSaveAndPlan } from './ReviewSave';
import { ReviewSummary } from './ReviewSummary';
import './Deploy.css';

/** Step 6: store the draft as a deployment, diff it against vCenter, and start the apply. */
export function StepReview({ draft, update, next, back }: StepProps) {
  const save = useSaveAndPlan();
  const apply = useStartDeploy(draft, update);
  const navigate = useNavigate();
  const started = useRef(false);

  const run = () =>
    save.mutate(
      // Another deployment (renamed): its own jobs, none yet; the one the draft was stays as it is.
      { draft, onSaved: (id) => update((d) => (d.deploymentId === id ? d : { ...d, deploymentId: id, jobId: null })) },
      {
        onError: (error) => {
          // A refusal about one field goes back to the step that asks for it, shown beside that field.
          if (!(error instanceof ApiError) || !error.field || error.status < 400 || error.status >= 500) return;
          const step = stepOfField(error.field);
          const field = error.field.replace(/^plan\./, '');
          if (step) void navigate(`/deploy/${step}`, { state: { returned: { field, message: error.message } } });
        },
      },
    );
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    run();
    // Once per visit: the draft does not change while this step is shown.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const deploy = () => {
    if (!save.data) return;
    apply.start(save.data.deployment.id, () => next());
  };

  const diff = save.data?.diff;
  return (
    <div className="wizard-review">
      <ReviewSummary draft={draft} />
      {save.isPending && <Loading label="Saving the plan and comparing it with vCenter" />}
      {save.isError && (
        <FormAlert>
          {messageOf(save.error)}{' '}
          <CdsButton size="sm" action="outline" onClick={run}>
            Check again
          </CdsButton>
        </FormAlert>
      )}
      {diff && <ReviewDiff diff={diff} cluster={draft.cluster} />}
      {diff && diff.actions.length === 0 && (
        <FormAlert status="success">vCenter matches the plan already: there is nothing to deploy.</FormAlert>
      )}
      {apply.error != null && <FormAlert>{messageOf(apply.error)}</FormAlert>}
      <SecretDialog ask={apply.ask} />
      <div className="form-actions">
        <CdsButton type="button" action="outline" onClick={back}>
          Back
        </CdsButton>
        <CdsButton
          type="button"
          onClick={deploy}
          disabled={!diff || diff.actions.length === 0 || apply.pending}
          loadingState={apply.pending ? 'loading' : 'default'}
        >
          Deploy
        </CdsButton>
      </div>
    </div>
  );
}
