import { CdsButton } from '@cds/react/button';
import { CdsIcon } from '@cds/react/icon';
import { useState } from 'react';
import type { Certificate } from '../../api/types';
import { FormAlert } from '../../components/FormAlert';
import { Thumbprint } from '../../components/Thumbprint';
import { formatAddress, formatDateTime } from '../../format';

interface Props {
  cert: Certificate;
  notice?: string;
  busy: boolean;
  onAccept: () => void;
  onCancel: () => void;
}

/** The certificate a vCenter presented that no CA vouches for, and the user's explicit decision. */
export function CertificateReview({ cert, notice, busy, onAccept, onCancel }: Props) {
  // Validity is judged once, when the certificate is shown.
  const [now] = useState(() => Date.now());
  const expired = new Date(cert.not_after).getTime() < now;
  const notYet = new Date(cert.not_before).getTime() > now;
  return (
    <section className="cert-review" aria-labelledby="cert-review-title">
      <h2 id="cert-review-title" cds-text="section">
        <CdsIcon shape="certificate" size="md" /> Untrusted certificate
      </h2>
      {notice && <FormAlert status="warning">{notice}</FormAlert>}
      <p>
        No trusted certificate authority vouches for the certificate that{' '}
        <strong>{formatAddress(cert.host, cert.port)}</strong> presented. Compare its SHA-256 thumbprint with the
        one vCenter shows (vSphere Client → Administration → Certificates) before you accept it. arcvsa will pin
        this thumbprint and refuse any other certificate from this vCenter.
      </p>
      <dl className="cert-details">
        <dt>SHA-256 thumbprint</dt>
        <dd data-testid="cert-thumbprint">
          <Thumbprint value={cert.thumbprint_sha256} />
        </dd>
        <dt>Subject</dt>
        <dd>{cert.subject}</dd>
        <dt>Issuer</dt>
        <dd>{cert.issuer}</dd>
        <dt>Valid</dt>
        <dd>
          {formatDateTime(cert.not_before)} – {formatDateTime(cert.not_after)}
          {expired && <span className="status status-error"> · expired</span>}
          {notYet && <span className="status status-error"> · not yet valid</span>}
        </dd>
      </dl>
      <div className="form-actions">
        <CdsButton onClick={onAccept} disabled={busy}>
          Accept and connect
        </CdsButton>
        <CdsButton action="outline" onClick={onCancel} disabled={busy}>
          Cancel
        </CdsButton>
      </div>
    </section>
  );
}
