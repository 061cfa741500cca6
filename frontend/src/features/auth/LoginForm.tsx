import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { loginMutation } from '../../api/queries/accounts';
import { failureText } from '../../api/errors';
import { Field, Notice, useFocusFirstError } from './Field';
import { MSG } from './messages';
import { validateLogin, type FieldErrors, type LoginValues } from './validation';

/** E-mail and password → POST /api/users/login → the session → `onSignedIn`. */
export function LoginForm({ onSignedIn, onForgot }: { onSignedIn: () => void; onForgot: () => void }) {
  const [values, setValues] = useState<LoginValues>({ email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors<LoginValues>>({});
  const [error, setError] = useState<string | null>(null);
  const login = useMutation(loginMutation());
  // Still busy after success, while the app navigates away.
  const busy = login.isPending || login.isSuccess;
  const { formRef, refused } = useFocusFirstError();

  const edit = (field: keyof LoginValues, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    // A field's error clears when that field is edited.
    setErrors((e) => ({ ...e, [field]: undefined }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateLogin(values);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length) return refused();
    login.mutate(
      { email: values.email.trim(), password: values.password },
      { onSuccess: onSignedIn, onError: (err) => setError(failureText(err, MSG.generic)) },
    );
  };

  return (
    <form ref={formRef} className="auth-form" onSubmit={submit} noValidate>
      <Field
        id="login-email"
        label="Email"
        type="email"
        autoComplete="email"
        value={values.email}
        error={errors.email}
        onChange={(e) => edit('email', e.target.value)}
      />
      <Field
        id="login-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        value={values.password}
        error={errors.password}
        onChange={(e) => edit('password', e.target.value)}
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
