import { useState } from 'react';
import {
  type Deployment,
  type DeploymentPlan,
  useApplyDeployment,
  usePlanDeployment,
  useUpdateDeployment,
} from '../../api/deployments';
import { ApiError } from '../../api/errors';
import { shownError, useSecretAsk } from './secrets';

/**
 * Change a stored plan in two steps: preview (PUT the plan, then POST plan: the diff against vCenter) and
 * apply (start the job). Cancelling after a preview puts the plan back as it was.
 */
export function usePlanChange(deployment: Deployment) {
  const [original] = useState<DeploymentPlan>(deployment.plan);
  const [stored, setStored] = useState(false);
  const update = useUpdateDeployment();
  const diff = usePlanDeployment();
  const apply = useApplyDeployment();
  const secrets = useSecretAsk();

  const preview = (next: DeploymentPlan) => {
    diff.reset();
    update.mutate(
      { id: deployment.id, plan: next },
      {
        onSuccess: () => {
          setStored(true);
          diff.mutate(deployment.id);
        },
      },
    );
  };
  /** Put the plan back when a preview stored a change that is not applied. */
  const revert = async () => {
    if (stored && !apply.isSuccess) await update.mutateAsync({ id: deployment.id, plan: original });
  };
  /** Start the apply; a password it needs is asked for (`ask`) and sent with that request only. */
  const start = (onStarted: (jobId: number) => void) =>
    secrets.run((given, refused) =>
      apply.mutate({ id: deployment.id, secrets: given }, { onSuccess: (job) => onStarted(job.id), onError: refused }),
    );

  const error = update.error ?? diff.error ?? shownError(apply.error);
  return {
    preview,
    revert,
    start,
    diff: diff.data,
    busy: update.isPending || diff.isPending || apply.isPending || secrets.ask !== null,
    error,
    ask: secrets.ask,
    /** The error's message when the api names this field (e.g. 'pool.count'), for the field itself. */
    errorOf: (field: string) => (error instanceof ApiError && error.field === field ? error.message : undefined),
  };
}
