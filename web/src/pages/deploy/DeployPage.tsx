import { useNavigate } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { ConnectForm } from './ConnectForm';
import { SavedVCenters } from './SavedVCenters';

/** The deployment wizard. Step 1 connects to vCenter; its inventory is where placement starts. */
export function DeployPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader title="Deploy" subtitle="Deploy arcvsa appliances to the ESXi hosts of a vSphere cluster." />
      <div className="wizard">
        <div className="wizard-step card">
          <div className="wizard-step-header">
            <span className="step-number" aria-hidden="true">
              1
            </span>
            <div>
              <h2 id="connect-title" cds-text="section">
                Connect to vCenter
              </h2>
              <p cds-text="secondary">
                arcvsa checks the certificate, logs in, and saves the connection only if the login works.
              </p>
            </div>
          </div>
          <ConnectForm onConnected={(vc) => navigate(`/vcenters/${vc.id}/inventory`)} />
        </div>
        <SavedVCenters />
      </div>
    </>
  );
}
