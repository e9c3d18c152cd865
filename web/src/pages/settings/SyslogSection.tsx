import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../../api/errors';
import {
  type SmtpSettings,
  type SyslogSettings,
  useNotifications,
  useSaveNotifications,
  useTestNotifications,
} from '../../api/settings';
import { ErrorState } from '../../components/ErrorState';
import { FormAlert } from '../../components/FormAlert';
import { Loading } from '../../components/Loading';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';

type Severity = SyslogSettings['forward_severity'];

const TRANSPORTS = [
  { value: 'udp', label: 'UDP' },
  { value: 'tcp', label: 'TCP (octet-counted)' },
] as const;

const SEVERITIES: readonly { value: Severity; label: string }[] = [
  { value: 'emerg', label: 'Emergency' },
  { value: 'alert', label: 'Alert' },
  { value: 'crit', label: 'Critical' },
  { value: 'err', label: 'Error' },
  { value: 'warning', label: 'Warning' },
  { value: 'notice', label: 'Notice' },
  { value: 'info', label: 'Informational' },
  { value: 'debug', label: 'Debug' },
];

/** The remote syslog server: alerts sent to it by the api, and the appliance's own logs forwarded by rsyslog. */
export function SyslogSection() {
  const settings = useNotifications();
  // here, not in the form: a save remounts the form (keyed on what is stored) and its outcome must stay
  const save = useSaveNotifications();
  const test = useTestNotifications();
  return (
    <section className="card storage-section" aria-labelledby="syslog-title" data-testid="syslog">
      <div className="section-head">
        <h2 id="syslog-title" cds-text="section">
          Remote syslog
        </h2>
      </div>
      <p className="muted">
        One syslog server (RFC 5424) for the alerts and, when asked, the appliance&apos;s own logs: the api, the NFS
        server, ZFS, iSCSI and the kernel. Forwarded logs wait in a queue while the server is unreachable over TCP;
        over UDP what is sent during an outage is lost.
      </p>
      {settings.isPending && <Loading label="Reading the syslog settings" />}
      {settings.isError && (
        <ErrorState title="Could not read the syslog settings" error={settings.error} onRetry={() => void settings.refetch()} />
      )}
      {/* keyed: a save or a refetch starts the form again from what the api stored */}
      {settings.isSuccess && settings.data.syslog && settings.data.smtp && (
        <SyslogForm key={JSON.stringify(settings.data.syslog)} syslog={settings.data.syslog} smtp={settings.data.smtp} save={save} test={test} />
      )}
    </section>
  );
}

interface FormProps {
  syslog: SyslogSettings;
  smtp: SmtpSettings;
  save: ReturnType<typeof useSaveNotifications>;
  test: ReturnType<typeof useTestNotifications>;
}

function SyslogForm({ syslog, smtp, save, test }: FormProps) {
  const [draft, setDraft] = useState<SyslogSettings>(syslog);
  const [port, setPort] = useState(String(syslog.port));
  const [errors, setErrors] = useState<{ host?: string; port?: string }>({});
  const set = (change: Partial<SyslogSettings>) => setDraft((d) => ({ ...d, ...change }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const number = Number(port);
    const found = {
      host: draft.host.trim() ? undefined : 'The syslog server’s name or IP address',
      port: Number.isInteger(number) && number >= 1 && number <= 65535 ? undefined : 'A port from 1 to 65535',
    };
    setErrors(found);
    save.reset();
    test.reset();
    if (found.host || found.port) return;
    // the SMTP settings as stored, their password kept (absent)
    save.mutate({ smtp, syslog: { ...draft, host: draft.host.trim(), port: number } });
  };

  return (
    <form className="settings-form" onSubmit={submit} noValidate aria-label="Remote syslog" data-testid="syslog-form">
      {save.isError && <FormAlert>Not saved: {messageOf(save.error)}</FormAlert>}
      <div className="form-row">
        <TextField label="Syslog server" name="host" value={draft.host} onChange={(host) => set({ host })} error={errors.host} hint="Name or IP address" />
        <TextField label="Port" name="port" type="number" width="short" value={port} onChange={setPort} error={errors.port} />
        <SelectField label="Transport" name="transport" value={draft.transport} options={TRANSPORTS} onChange={(t) => set({ transport: t as SyslogSettings['transport'] })} />
      </div>
      <label className="checkbox-line">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} data-testid="syslog-alerts" />
        <span>Send alerts to this server</span>
      </label>
      <label className="checkbox-line">
        <input type="checkbox" checked={draft.forward_logs} onChange={(e) => set({ forward_logs: e.target.checked })} data-testid="syslog-forward" />
        <span>
          Forward the appliance&apos;s logs to this server <span className="muted">(its journal, through rsyslog)</span>
        </span>
      </label>
      <div className="form-row">
        <SelectField
          label="Forward logs from"
          name="forward_severity"
          value={draft.forward_severity}
          options={SEVERITIES}
          onChange={(s) => set({ forward_severity: s as Severity })}
          hint="This severity and every more severe one"
          disabled={!draft.forward_logs}
        />
      </div>
      <div className="form-actions">
        <CdsButton type="submit" disabled={save.isPending} loadingState={save.isPending ? 'loading' : 'default'} data-testid="syslog-save">
          Save
        </CdsButton>
        <CdsButton type="button" action="outline" disabled={test.isPending || save.isPending} onClick={() => test.mutate()} data-testid="syslog-test">
          Send a test alert
        </CdsButton>
      </div>
      {save.isSuccess && <FormAlert status="success">Saved{save.data.syslog?.forward_logs ? ': the appliance forwards its logs.' : '.'}</FormAlert>}
      {test.isError && <FormAlert>Could not test: {messageOf(test.error)}</FormAlert>}
      {test.isSuccess && test.data.length === 0 && <FormAlert status="info">No alert channel is enabled.</FormAlert>}
      {test.isSuccess &&
        test.data.map((r) => (
          <FormAlert key={r.channel} status={r.ok ? 'success' : 'danger'}>
            {r.channel === 'smtp' ? 'E-mail' : 'Syslog'}: {r.ok ? 'the server took the test message.' : r.error}
          </FormAlert>
        ))}
    </form>
  );
}
