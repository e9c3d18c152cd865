import { CdsButton } from '@cds/react/button';
import { messageOf } from '../../api/errors';
import { useRenewTls } from '../../api/settings';
import { FormAlert } from '../../components/FormAlert';

/** What renewing the appliance's own certificate changes for those who trust it, then Renew or Cancel. */
export function TlsRenewConfirm({ onDone }: { onDone: () => void }) {
  const renew = useRenewTls();
  return (
    <div className="cert-check" role="group" aria-label="Renew the certificate" data-testid="tls-renew">
      {renew.isError && <FormAlert>{messageOf(renew.error)}</FormAlert>}
      <p>
        A new key and a certificate for the same names, valid for a year from now. Its thumbprint changes: browsers
        warn again until it is trusted, and an arcvsa manager that pinned this appliance asks you to accept the new
        thumbprint. The api serves it after its next restart.
      </p>
      <div className="form-actions">
        <CdsButton type="button" onClick={() => renew.mutate(undefined, { onSuccess: onDone })} disabled={renew.isPending} loadingState={renew.isPending ? 'loading' : 'default'}>
          Renew certificate
        </CdsButton>
        <CdsButton type="button" action="outline" onClick={onDone} disabled={renew.isPending}>
          Cancel
        </CdsButton>
      </div>
    </div>
  );
}
