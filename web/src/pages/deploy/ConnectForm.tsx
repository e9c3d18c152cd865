import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import type { VCenter } from '../../api/types';
import { FormAlert } from '../../components/FormAlert';
import { TextField } from '../../components/TextField';
import { CertificateReview } from './CertificateReview';
import { type ConnectDraft, emptyDraft } from './connectModel';
import { useConnectFlow } from './useConnectFlow';

const PROGRESS = { certificate: 'Checking the certificate', connect: 'Logging in to vCenter' } as const;

/** Wizard step 1: where vCenter is and how to log in to it. */
export function ConnectForm({ onConnected }: { onConnected: (vcenter: VCenter) => void }) {
  const [draft, setDraft] = useState<ConnectDraft>(emptyDraft);
  const flow = useConnectFlow(onConnected);
  const reviewing = flow.stage.kind === 'review';
  const locked = reviewing || flow.busy !== null;

  const field = (name: keyof ConnectDraft) => ({
    name,
    value: draft[name],
    error: flow.errors[name],
    readOnly: locked,
    onChange: (value: string) => {
      setDraft((current) => ({ ...current, [name]: value }));
      flow.clearError(name);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!locked) void flow.submit(draft);
  };

  return (
    <form className="connect-form" onSubmit={submit} noValidate aria-labelledby="connect-title">
      {flow.formError && <FormAlert>{flow.formError}</FormAlert>}
      <div className="form-grid">
        <TextField label="Name" hint="How arcvsa lists this vCenter, e.g. the site name." autoFocus {...field('name')} />
        <div className="form-row">
          <TextField label="Address" hint="DNS name or IP address of vCenter Server." {...field('host')} />
          <TextField label="Port" width="short" {...field('port')} />
        </div>
        <TextField label="User name" hint="e.g. administrator@vsphere.local" autoComplete="off" {...field('username')} />
        <TextField label="Password" type="password" autoComplete="new-password" {...field('password')} />
      </div>
      {flow.stage.kind === 'review' ? (
        <CertificateReview
          cert={flow.stage.cert}
          notice={flow.stage.notice}
          busy={flow.busy !== null}
          onAccept={() => void flow.accept(draft)}
          onCancel={flow.cancel}
        />
      ) : (
        <div className="form-actions">
          <CdsButton type="submit" disabled={flow.busy !== null} loadingState={flow.busy ? 'loading' : 'default'}>
            Connect
          </CdsButton>
          {flow.busy && (
            <span className="muted" role="status">
              {PROGRESS[flow.busy]}…
            </span>
          )}
        </div>
      )}
    </form>
  );
}
