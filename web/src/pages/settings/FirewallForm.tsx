import { CdsButton } from '@cds/react/button';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import type { FirewallSettings } from '../../api/settings';
import { HostsField } from '../storage/HostsField';
import { firewallFieldErrors, networksError, parseNetworks } from './firewallModel';
import { type FieldErrors, compact } from './userModel';

interface Props {
  settings: FirewallSettings;
  busy: boolean;
  /** The api's refusal of the last save, shown beside its field when it names one. */
  refusal: unknown;
  onSave: (settings: FirewallSettings) => void;
  /** What came of the last save, confirmation or cancellation: under the Save button, where it was asked. */
  children?: ReactNode;
}

/** The management and iSCSI networks, typed one per line, SSH on or off, and root's key login. */
export function FirewallForm({ settings, busy, refusal, onSave, children }: Props) {
  const [management, setManagement] = useState(settings.management.join('\n'));
  const [iscsi, setIscsi] = useState((settings.iscsi ?? []).join('\n'));
  const [ssh, setSsh] = useState(settings.ssh);
  const [sshRoot, setSshRoot] = useState(settings.ssh_root ?? false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const sshHint = useId();
  const rootHint = useId();
  const shown = { ...firewallFieldErrors(refusal), ...errors };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // root's key login is kept while SSH is off, and holds again when SSH comes back on
    const wanted = { management: parseNetworks(management), iscsi: parseNetworks(iscsi), ssh, ssh_root: sshRoot };
    const invalid = compact({ management: networksError(wanted.management, true), iscsi: networksError(wanted.iscsi, false) });
    setErrors(invalid);
    if (Object.keys(invalid).length === 0) onSave(wanted);
  };

  return (
    <form className="settings-form" onSubmit={submit} noValidate aria-label="Firewall and SSH" data-testid="firewall-form">
      <HostsField
        label="Management networks"
        name="management"
        value={management}
        onChange={setManagement}
        error={shown.management}
        hint="One network per line (10.0.2.0/24), or an address alone: the web interface, and SSH when on, answer these only. 0.0.0.0/0 and ::/0 let every address in."
      />
      <HostsField
        label="iSCSI initiator networks"
        name="iscsi"
        value={iscsi}
        onChange={setIscsi}
        error={shown.iscsi}
        hint="The ESXi hosts’ iSCSI networks, one per line: port 3260 opens to them while an iSCSI target exists. None: iSCSI stays closed."
      />
      <div>
        <label className="checkbox-line">
          <input type="checkbox" name="ssh" checked={ssh} onChange={(e) => setSsh(e.target.checked)} aria-describedby={sshHint} />
          <span>SSH (keys only)</span>
        </label>
        <p id={sshHint} className="muted small">
          Port 22, from the management networks. Passwords are refused: log in as arcvsa with the SSH public key given when the appliance was deployed.
        </p>
      </div>
      <div>
        <label className="checkbox-line">
          <input
            type="checkbox"
            name="ssh_root"
            checked={sshRoot}
            disabled={!ssh}
            onChange={(e) => setSshRoot(e.target.checked)}
            aria-describedby={rootHint}
          />
          <span>SSH as root with the key</span>
        </label>
        <p id={rootHint} className="muted small">
          For automation with no terminal: root logs in with arcvsa’s SSH keys. Off, root cannot log in at all; administrators log in as arcvsa and use sudo.
        </p>
      </div>
      <div className="form-actions">
        <CdsButton type="submit" disabled={busy} loadingState={busy ? 'loading' : 'default'} data-testid="firewall-save">
          Save
        </CdsButton>
      </div>
      {children}
    </form>
  );
}
