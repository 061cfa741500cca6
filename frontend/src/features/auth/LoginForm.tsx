import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { loginMutation, type TwoFactorChallenge } from '../../api/queries/accounts';
import { failureText } from '../../api/errors';
import { useForm } from '../../components/useForm';
import { Field, Notice } from './Field';
import { MSG } from './messages';
import { validateLogin, type LoginValues } from './validation';

const EMPTY: LoginValues = { email: '', password: '' };

/** E-mail and password → POST /api/users/login → the session → `onSignedIn` (or, two-factor sign-in on, `onChallenge`). */
export function LoginForm({
  onSignedIn,
  onChallenge,
  onForgot,
}: {
  onSignedIn: () => void;
  onChallenge: (challenge: TwoFactorChallenge) => void;
  onForgot: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const login = useMutation(loginMutation());
  const { values, errors, set, onSubmit, busy } = useForm({
    initial: EMPTY,
    validate: validateLogin,
    // Still busy after success, while the app navigates away.
    busy: login.isPending || login.isSuccess,
    onAttempt: () => setError(null),
    onValid: ({ email, password }) =>
      login.mutate(
        { email: email.trim(), password },
        {
          onSuccess: (challenge) => (challenge ? onChallenge(challenge) : onSignedIn()),
          onError: (err) => setError(failureText(err, MSG.generic)),
        },
      ),
  });

  return (
    <form className="auth-form" onSubmit={onSubmit} noValidate>
      <Field
        id="login-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={errors.email}
        onChange={(e) => set('email', e.target.value)}
      />
      <Field
        id="login-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={values.password}
        error={errors.password}
        onChange={(e) => set('password', e.target.value)}
      />
      <Notice error={error} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>
        {busy && <span className="spinner small" aria-hidden="true" />}
        Sign In
      </button>
      <div className="auth-row">
        <button type="button" className="link-button" onClick={onForgot}>
          {MSG.forgotPassword}
        </button>
      </div>
    </form>
  );
}
