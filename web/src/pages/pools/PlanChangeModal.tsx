import { CdsButton } from '@cds/react/button';
import { CdsModal, CdsModalActions, CdsModalContent, CdsModalHeader } from '@cds/react/modal';
import { type FormEvent, type ReactNode, useId } from 'react';
import type { DeploymentPlan } from '../../api/deployments';
import { ApiError, messageOf } from '../../api/errors';
import { FormAlert } from '../../components/FormAlert';
import { PlanDiff } from './PlanDiff';
import { SecretAsk } from './SecretAsk';
import type { usePlanChange } from './usePlanChange';

interface Props {
  title: string;
  /** The fields of the change; their own errors under them. */
  children: ReactNode;
  /** The plan as the fields make it; null while they are not valid. */
  next: DeploymentPlan | null;
  /** The fields the api may name in an error (shown there, not again here). */
  fields: string[];
  change: ReturnType<typeof usePlanChange>;
  onStarted: (jobId: number) => void;
  onClose: () => void;
}

/** A plan change in two steps: show the diff against vCenter, then apply it. */
export function PlanChangeModal({ title, children, next, fields, change, onStarted, onClose }: Props) {
  const titleId = useId();
  const close = () => void change.revert().finally(onClose);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (next) change.preview(next);
  };
  const apply = () => change.start((jobId) => {
    onStarted(jobId);
    onClose();
  });
  const own = change.error instanceof ApiError && change.error.field !== null && fields.includes(change.error.field);
  return (
    <CdsModal aria-labelledby={titleId} onCloseChange={close} closable>
      <CdsModalHeader>
        <h2 id={titleId} cds-text="title">
          {title}
        </h2>
      </CdsModalHeader>
      <CdsModalContent>
        <form className="destroy-form" onSubmit={submit} noValidate>
          {children}
          <div className="form-actions">
            <CdsButton type="submit" action="outline" disabled={!next || change.busy}>
              Show changes
            </CdsButton>
          </div>
          {change.error != null && !own && <FormAlert>{messageOf(change.error)}</FormAlert>}
          {change.diff && <PlanDiff diff={change.diff} />}
        </form>
        {change.ask && <SecretAsk key={change.ask.field} ask={change.ask} />}
      </CdsModalContent>
      <CdsModalActions>
        <div cds-layout="horizontal gap:sm align:right">
          <CdsButton action="outline" onClick={close} disabled={change.busy}>
            Cancel
          </CdsButton>
          <CdsButton
            onClick={apply}
            disabled={!change.diff || change.diff.actions.length === 0 || change.busy}
            loadingState={change.busy ? 'loading' : 'default'}
          >
            Apply
          </CdsButton>
        </div>
      </CdsModalActions>
    </CdsModal>
  );
}
