import { TextField } from '../../components/TextField';

interface Props {
  password: string;
  confirm: string;
  errors: Record<string, string>;
  onPassword: (value: string) => void;
  onConfirm: (value: string) => void;
}

/** The appliances' admin password, twice. Kept in memory only: a reload asks for it again. */
export function BackendPasswordFields({ password, confirm, errors, onPassword, onConfirm }: Props) {
  return (
    <div className="form-grid">
      <TextField
        label="Appliance admin password"
        name="adminPassword"
        type="password"
        autoComplete="new-password"
        value={password}
        hint="8 to 128 characters: the appliances’ web interface and console. Not kept in this browser."
        error={errors.adminPassword}
        onChange={onPassword}
      />
      <TextField
        label="Confirm the password"
        name="adminPasswordConfirm"
        type="password"
        autoComplete="new-password"
        value={confirm}
        error={errors.adminPasswordConfirm}
        onChange={onConfirm}
      />
    </div>
  );
}
