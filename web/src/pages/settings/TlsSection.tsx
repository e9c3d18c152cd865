import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import { useTls } from '../../api/settings';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { CertificateDetails } from './CertificateDetails';
import { TlsRenewConfirm } from './TlsRenewConfirm';
import { TlsUploadForm } from './TlsUploadForm';

/** The certificate browsers see on this appliance, its renewal when the appliance made it, and the upload of an
 * administrator's own. */
export function TlsSection() {
  const tls = useTls();
  const [uploading, setUploading] = useState(false);
  const [renewing, setRenewing] = useState(false);
  const renewable = tls.isSuccess && tls.data.certificate?.renewable === true;
  return (
    <section className="card storage-section" aria-labelledby="tls-title" data-testid="tls">
      <div className="section-head">
        <h2 id="tls-title" cds-text="section">
          TLS certificate
        </h2>
        <div className="section-actions">
          {renewable && (
            <CdsButton size="sm" action="outline" onClick={() => setRenewing(true)} disabled={renewing || uploading}>
              <CdsIcon shape="refresh" /> Renew
            </CdsButton>
          )}
          <CdsButton size="sm" action="outline" onClick={() => setUploading(true)} disabled={uploading || renewing}>
            <CdsIcon shape="certificate" /> Upload a certificate
          </CdsButton>
        </div>
      </div>
      <p className="muted">
        The certificate of this web interface and api (HTTPS). A new one takes effect when the api restarts (restart the
        arcvsa service or the appliance).
      </p>
      {tls.isSuccess && tls.data.restart_needed && (
        <FormAlert status="warning">
          A new certificate is installed: the api serves it after its next restart. Until then browsers see the old one.
        </FormAlert>
      )}
      {uploading && <TlsUploadForm onDone={() => setUploading(false)} />}
      {renewing && <TlsRenewConfirm onDone={() => setRenewing(false)} />}
      {tls.isPending && <Loading label="Reading the certificate" />}
      {tls.isError && <ErrorState title="Could not read the certificate" error={tls.error} onRetry={() => void tls.refetch()} />}
      {tls.isSuccess && !uploading && (
        tls.data.certificate ? (
          <CertificateDetails facts={tls.data.certificate} />
        ) : (
          <p className="muted">No certificate yet: the api makes a self-signed one when it starts.</p>
        )
      )}
    </section>
  );
}
