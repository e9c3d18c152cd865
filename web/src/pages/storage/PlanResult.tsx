import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import { messageOf } from '../../api/errors';
import { type Plan, useApplyParameters } from '../../api/storage';
import { ConfirmModal } from '../../components/ConfirmModal';
import { FormAlert } from '../../components/FormAlert';
import { formatBytes } from '../../format';
import { poolTypeLabel } from './poolTypes';
import { formatValue } from './tuningModel';

/** The calculator's answer: the expected offload first, warnings, then each value with its one-line why. */
export function PlanResult({ plan }: { plan: Plan }) {
  const apply = useApplyParameters();
  const [asking, setAsking] = useState(false);
  const close = () => {
    setAsking(false);
    apply.reset();
  };
  return (
    <div className="plan" data-testid="plan" aria-live="polite">
      <div className="plan-headline">
        <div>
          <div className="metric-big" data-testid="expected-offload">
            {plan.expected_read_offload}x
          </div>
          <div className="muted small">expected read offload: client reads per SAN read, once the cache is warm</div>
        </div>
        <div>
          <div className="metric-big">{formatBytes(plan.hot_set_bytes)}</div>
          <div className="muted small">hot set (compressed) for {poolTypeLabel(plan.pool_type).toLowerCase()}</div>
        </div>
      </div>
      {plan.warnings.map((w) => (
        <FormAlert key={w} status="warning">
          {w}
        </FormAlert>
      ))}
      <div className="table-wrap">
        <table cds-table="border:outside border:row" className="data-table" data-testid="recommendations">
          <caption className="sr-only">Recommendations and why</caption>
          <thead>
            <tr>
              <th>Setting</th>
              <th className="num">Value</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {plan.recommendations.map((r) => (
              <tr key={r.name} data-testid="recommendation" data-name={r.name}>
                <th scope="row">
                  <code>{r.name}</code>
                </th>
                <td className="num nowrap">{formatValue(r.name, r.value)}</td>
                <td>{r.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
