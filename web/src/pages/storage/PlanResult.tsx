import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type Plan, useApplyParameters } from '../../api/storage';
import { ConfirmModal } from '../../components/ConfirmModal';
import { PlanFigures } from './PlanFigures';
import { formatValue } from './tuningModel';

/** The calculator's answer (PlanFigures) and the action that applies its module parameters to this appliance. */
export function PlanResult({ plan }: { plan: Plan }) {
  const apply = useApplyParameters();
  const [asking, setAsking] = useState(false);
  const close = () => {
    setAsking(false);
    apply.reset();
  };
  return (
    <div className="plan" data-testid="plan" aria-live="polite">
      <PlanFigures plan={plan} />
      <div className="form-actions">
        <CdsButton action="outline" onClick={() => setAsking(true)}>
          Apply module parameters…
        </CdsButton>
        {apply.isSuccess && (
          <span className="status status-ok" role="status">
            Applied: {Object.keys(apply.data.changed_live).length} changed live
            {apply.data.persisted ? ', saved for the next boot' : ', already saved'}
          </span>
        )}
      </div>
      {asking && (
        <ConfirmModal
          title="Apply these module parameters?"
          confirmLabel="Apply"
          busy={apply.isPending}
          error={apply.isError ? messageOf(apply.error) : null}
          onCancel={close}
          onConfirm={() => apply.mutate(plan.module, { onSuccess: () => setAsking(false) })}
        >
          <p>The ZFS module takes them at once and keeps them after a reboot:</p>
          <ul className="doomed-list">
            {Object.entries(plan.module).map(([name, value]) => (
              <li key={name}>
                <code>{name}</code> = {formatValue(name, value)}
              </li>
            ))}
          </ul>
          <p className="muted">Dataset properties are not changed here: they apply when a dataset is created with this pool type.</p>
        </ConfirmModal>
      )}
    </div>
  );
}
