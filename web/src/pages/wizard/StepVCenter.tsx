import { CdsButton } from '@cds/react/button';
import { useState } from 'react';
import './backend.css';
import { useVCenters } from '../../api/vcenters';
import { ErrorState } from '../../components/ErrorState';
import { Loading } from '../../components/Loading';
import { ConnectForm } from '../deploy/ConnectForm';
import type { StepProps } from './draft';
import { useRefusal } from './placementRefusal';
import { VCenterChoice } from './VCenterChoice';
import { validateVCenter } from './vcenterModel';

/** Step 1: the vCenter to deploy through: a saved connection, or a new one (its certificate shown first). */
export function StepVCenter({ draft, update, next }: StepProps) {
  const vcenters = useVCenters();
  const { errors, refuse, clear } = useRefusal();
  const [adding, setAdding] = useState(false);

  if (vcenters.isPending) return <Loading label="Reading the saved vCenters" />;
  if (vcenters.isError) {
    return <ErrorState title="Could not read the saved vCenters" error={vcenters.error} onRetry={() => void vcenters.refetch()} />;
  }
  const saved = vcenters.data;
  const showForm = adding || saved.length === 0;

  const choose = (id: number) => {
    clear('vcenter');
    // Another vCenter has other datacenters, hosts and datastores: the later answers start over.
    update((d) => (d.vcenterId === id ? d : { ...d, vcenterId: id, datacenter: '', cluster: '', hosts: [], reached: 0 }));
  };

  const submit = () => {
    if (!refuse(validateVCenter(draft.vcenterId, saved))) next();
  };

  return (
    <>
      <p className="muted">The appliances, the datastore and the desktops are created through this vCenter.</p>
      {saved.length > 0 && (
        <VCenterChoice vcenters={saved} chosen={draft.vcenterId} error={errors.vcenter} onChoose={choose} />
      )}
      {saved.length === 0 && errors.vcenter && (
        <p className="text-danger" data-field-message="vcenter" role="alert">
          {errors.vcenter}
        </p>
      )}
      {showForm ? (
        <div className="wizard-subsection">
          <h3 id="connect-title" cds-text="subsection">
            Add a vCenter
          </h3>
          <p className="muted small">arcvsa checks the certificate, logs in, and saves the connection only if the login works.</p>
          <ConnectForm
            onConnected={(vc) => {
              setAdding(false);
              choose(vc.id);
            }}
          />
        </div>
      ) : (
        <div>
          <CdsButton action="outline" size="sm" onClick={() => setAdding(true)}>
            Add a vCenter…
          </CdsButton>
        </div>
      )}
      <div className="form-actions">
        <CdsButton onClick={submit}>Next</CdsButton>
      </div>
    </>
  );
}
