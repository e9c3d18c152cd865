import { TextField } from '../../components/TextField';
import type { DesktopErrors, Horizon } from './desktopsModel';

const EMPTY_HORIZON: Horizon = { endpoint: '', username: '', domain: '', password: '', vcenter: '' };

interface Props {
  horizon: Horizon | null;
  /** The vCenter's address, Horizon's usual name for it */
  vcenterHost: string;
  errors: DesktopErrors;
  onChange: (horizon: Horizon | null) => void;
}

/** Optionally hand the desktops to a Horizon Connection Server as a manual desktop pool. */
export function DesktopsHorizon({ horizon, vcenterHost, errors, onChange }: Props) {
  const set = (key: keyof Horizon) => (value: string) => horizon && onChange({ ...horizon, [key]: value });
  return (
    <fieldset className="wizard-fieldset">
      <legend cds-text="subsection" className="fieldset-title">
        Horizon
      </legend>
      <label className="checkbox-line">
        <input
          type="checkbox"
          name="horizonEnabled"
          checked={horizon !== null}
          onChange={(event) => onChange(event.target.checked ? { ...EMPTY_HORIZON, vcenter: vcenterHost } : null)}
        />{' '}
        Add the desktops to a Horizon manual desktop pool
      </label>
      {horizon && (
        <>
          <div className="form-row">
            <TextField label="Connection Server" name="horizon.endpoint" value={horizon.endpoint} hint="host:port of its REST API" error={errors['horizon.endpoint']} onChange={set('endpoint')} />
            <TextField label="vCenter name in Horizon" name="horizon.vcenter" value={horizon.vcenter} hint="As Horizon lists the vCenter" error={errors['horizon.vcenter']} onChange={set('vcenter')} />
          </div>
          <div className="form-row">
            <TextField label="Horizon user" name="horizon.username" value={horizon.username} error={errors['horizon.username']} onChange={set('username')} autoComplete="off" />
            <TextField label="Domain" name="horizon.domain" value={horizon.domain} error={errors['horizon.domain']} onChange={set('domain')} />
            <TextField label="Horizon password" name="horizon.password" type="password" value={horizon.password} hint="Kept sealed by arcvsa; never saved in this browser" error={errors['horizon.password']} onChange={set('password')} autoComplete="off" />
          </div>
        </>
      )}
    </fieldset>
  );
}
