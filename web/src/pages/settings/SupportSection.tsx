import { CdsButton } from '@cds/react/button';
import { useSupportBundle } from '../../api/support';
import { messageOf } from '../../api/errors';
import { FormAlert } from '../../components/FormAlert';
import { formatBytes } from '../../format';

/** The support bundle: one archive of versions, logs, pool state and configuration, secrets redacted. */
export function SupportSection() {
  const bundle = useSupportBundle();
  return (
    <section className="card storage-section" aria-labelledby="support-title" data-testid="support">
      <div className="section-head">
        <h2 id="support-title" cds-text="section">
          Support
        </h2>
        <div className="section-actions">
          <CdsButton
            size="sm"
            action="outline"
            onClick={() => bundle.mutate()}
            disabled={bundle.isPending}
            data-testid="support-bundle"
          >
            {bundle.isPending ? 'Collecting…' : 'Download support bundle'}
          </CdsButton>
        </div>
      </div>
      <p className="muted">
        One archive with the versions, the logs of the api, the NFS servers and the kernel, the pools' status, events
        and history, ARC statistics, and the NFS and iSCSI configuration. Passwords, CHAP secrets, tokens and keys are
        replaced by &lt;redacted&gt;; MANIFEST.json lists every item and anything that could not be collected.
      </p>
      {bundle.isSuccess && (
        <FormAlert status="success">
          Saved {bundle.data.name} ({formatBytes(bundle.data.size)}).
        </FormAlert>
      )}
      {bundle.isError && <FormAlert>Could not make the support bundle: {messageOf(bundle.error)}</FormAlert>}
    </section>
  );
}
