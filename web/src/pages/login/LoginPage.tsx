import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { useLogin, useMe } from '../../api/auth';
import { forgetRestoredReport, useRestoredReport } from '../../api/backup';
import { ApiError } from '../../api/errors';
import { sessionEnded } from '../../api/session';
import { BrandMark } from '../../components/BrandMark';
import { FormAlert } from '../../components/FormAlert';
import { RestoreResult } from '../../components/RestoreResult';
import { TextField } from '../../components/TextField';

interface LoginState {
  from?: string;
}

type Field = 'username' | 'password';

export function LoginPage() {
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as LoginState;
  const me = useMe();
  const login = useLogin();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const restored = useRestoredReport();
  const target = state.from && state.from !== '/login' ? state.from : '/vcenters';
  if (me.isSuccess) return <Navigate to={target} replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing: Partial<Record<Field, string>> = {};
    if (!username.trim()) missing.username = 'Enter your user name.';
    if (!password) missing.password = 'Enter your password.';
    setErrors(missing);
    setFormError(null);
    if (Object.keys(missing).length) return;
    login.mutate(
      { username: username.trim(), password },
      {
        onSuccess: () => {
          forgetRestoredReport();
          navigate(target, { replace: true });
        },
        onError: (error) => {
          if (error instanceof ApiError && (error.field === 'password' || error.field === 'username')) {
            setErrors({ [error.field]: error.message });
          } else {
            setFormError(error.message);
          }
        },
      },
    );
  };

  return (
    <div className="login-page">
      <form className="login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
        <div className="login-brand">
          <BrandMark size={40} />
          <div>
            <h1 id="login-title" cds-text="heading">
              arcvsa
            </h1>
            <p cds-text="secondary">Storage acceleration for VDI on vSphere</p>
          </div>
        </div>
        {restored && !formError && <RestoreResult report={restored} />}
        {!restored && sessionEnded() && !formError && <FormAlert status="warning">Your session has ended. Log in again.</FormAlert>}
        {formError && <FormAlert>{formError}</FormAlert>}
        <TextField
          label="User name"
          name="username"
          value={username}
          onChange={setUsername}
          error={errors.username}
          autoComplete="username"
          autoFocus
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          value={password}
          onChange={setPassword}
          error={errors.password}
          autoComplete="current-password"
        />
        <CdsButton type="submit" block disabled={login.isPending} loadingState={login.isPending ? 'loading' : 'default'}>
          {login.isPending ? 'Logging in' : 'Log in'}
        </CdsButton>
      </form>
    </div>
  );
}
