import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import { type Calibration, useCalibrations, useDeleteCalibration } from '../../api/calibration';
import { messageOf } from '../../api/errors';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { TableSection } from '../../components/TableSection';
import { CalibrationForm } from './CalibrationForm';
import { CalibrationResult, targetLabel } from './CalibrationResult';
import './calibration.css';

function outcome(c: Calibration): string {
  if (c.state !== 'succeeded') return c.state;
  if (c.kind === 'ramp') return `${c.desktops_supported ?? '?'} desktops`;
  const read = c.san?.phases.find((p) => p.name === 'randread-4k');
  return read ? `${read.iops.toFixed(0)} 4K read IOPS` : 'done';
}

/** Calibration: how many desktops a LUN or a dataset serves within a latency threshold, and SAN checks. */
export function CalibrationPage() {
  const calibrations = useCalibrations();
  const remove = useDeleteCalibration();
  const [shownId, setShownId] = useState<number | null>(null);
  const all = calibrations.data ?? [];
  const shown = all.find((c) => c.id === shownId) ?? all[0];
  return (
    <>
      <PageHeader
        title="Calibration"
        subtitle="How many VDI desktops this appliance serves within a latency threshold — on the bare LUN and through arcvsa — and a quick SAN check of a LUN before a pool is built."
      />
      <CalibrationForm />
      {calibrations.isPending && <Loading label="Reading the calibrations" />}
      {calibrations.isError && <ErrorState title="The calibrations could not be read" error={calibrations.error} onRetry={() => void calibrations.refetch()} />}
      {shown && <CalibrationResult calibration={shown} />}
      {calibrations.isSuccess && (
        <TableSection
          id="calibrations"
          title="Past calibrations"
          count={all.length}
          variant="storage-section"
          testId="calibrations"
          head={
            <>
              <th scope="col">Started</th>
              <th scope="col">Test</th>
              <th scope="col">Target</th>
              <th scope="col">Result</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </>
          }
        >
          {all.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No calibration yet: run one above.
              </td>
            </tr>
          )}
          {all.map((c) => (
            <tr key={c.id} aria-current={c.id === shown?.id ? 'true' : undefined}>
              <td>{new Date(c.created_at).toLocaleString()}</td>
              <td>{c.kind === 'ramp' ? 'Ramp' : 'SAN check'}</td>
              <td>
                <code>{targetLabel(c)}</code>
              </td>
              <td>{outcome(c)}</td>
              <td className="row-actions">
                <CdsButton size="sm" action="flat" onClick={() => setShownId(c.id)} aria-label={`Show calibration ${c.id}`}>
                  Show
                </CdsButton>
                <CdsButton
                  size="sm"
                  action="flat"
                  status="danger"
                  onClick={() => remove.mutate(c.id)}
                  disabled={remove.isPending || c.state === 'queued' || c.state === 'running'}
                  aria-label={`Delete calibration ${c.id}`}
                >
                  Delete
                </CdsButton>
              </td>
            </tr>
          ))}
        </TableSection>
      )}
      {remove.isError && (
        <p className="text-danger" role="alert">
          {messageOf(remove.error)}
        </p>
      )}
    </>
  );
}
