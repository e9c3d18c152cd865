import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/errors';
import { type TlsUpload, useCheckTls, useInstallTls } from '../../api/settings';
import { FormAlert } from '../../components/FormAlert';
import { CertificateDetails } from './CertificateDetails';
import { PemField } from './PemField';
import { type FieldErrors, apiFieldError, compact } from './userModel';

const FIELDS = ['certificate', 'private_key'] as const;

/** Paste or load a PEM chain and key; "Check" shows what the certificate says, "Install" puts it in place. */
export function TlsUploadForm({ onDone }: { onDone: () => void }) {
  const check = useCheckTls();
  const install = useInstallTls();
  const [pair, setPair] = useState<TlsUpload>({ certificate: '', private_key: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const failed = install.error ?? check.error;
  const fromApi = apiFieldError(failed, FIELDS);
  const shown = { ...fromApi, ...errors };
  const busy = check.isPending || install.isPending;

  const edit = (change: Partial<TlsUpload>) => {
    setPair({ ...pair, ...change });
    check.reset();
    install.reset();
  };
  const valid = () => {
    const invalid = compact({
      certificate: pair.certificate.trim() ? undefined : 'Paste the certificate chain (PEM), or read it from a file',
      private_key: pair.private_key.trim() ? undefined : 'Paste the private key (PEM), or read it from a file',
    });
    setErrors(invalid);
    return Object.keys(invalid).length === 0;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid()) install.mutate(pair, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Upload a certificate" data-testid="tls-upload">
      {failed && !fromApi && <FormAlert>{messageOf(failed)}</FormAlert>}
      <PemField label="Certificate chain" name="certificate" value={pair.certificate} onChange={(certificate) => edit({ certificate })} error={shown.certificate} hint="The server certificate first, then each intermediate issuer (-----BEGIN CERTIFICATE-----)" disabled={busy} />
      <PemField label="Private key" name="private_key" value={pair.private_key} onChange={(private_key) => edit({ private_key })} error={shown.private_key} hint="The server certificate's key, without a passphrase (-----BEGIN PRIVATE KEY-----). It is stored readable by the api only." disabled={busy} />
      {check.isSuccess && (
        <div className="cert-check" role="status">
          <p>The certificate and key fit together and are valid now:</p>
          <CertificateDetails facts={check.data} />
        </div>
      )}
      <div className="form-actions">
        <CdsButton type="button" action="outline" onClick={() => valid() && check.mutate(pair)} disabled={busy} loadingState={check.isPending ? 'loading' : 'default'}>
          Check
        </CdsButton>
        <CdsButton type="submit" disabled={busy} loadingState={install.isPending ? 'loading' : 'default'}>
          Install certificate
        </CdsButton>
        <CdsButton type="button" action="outline" onClick={onDone} disabled={busy}>
          Cancel
        </CdsButton>
      </div>
    </form>
  );
}
