import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { failureText } from '../../api/errors';
import { loginTwoFactorMutation, type TwoFactorChallenge } from '../../api/queries/accounts';
import { useForm } from '../../components/useForm';
import { Field, Notice } from './Field';
import { CODE_LENGTH, MSG } from './messages';
import { validateSecondFactor } from './validation';

type Method = TwoFactorChallenge['methods'][number];

/**
 * The second step of a sign-in to an account with two-factor sign-in on (after the password, a social sign-in or a
 * password reset): the authenticator app's code, or one of the recovery codes; the session starts once one is right.
 */
export function TwoFactorStep({ challenge, onSignedIn, onCancel }: { challenge: TwoFactorChallenge; onSignedIn: () => void; onCancel: () => void }) {
  const [method, setMethod] = useState<Method>('totp');
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The step replaced the form the user was in: keyboard and screen-reader users land on its heading.
  useEffect(() => heading.current?.focus(), [method]);
  const verify = useMutation(loginTwoFactorMutation());
  const form = useForm({
    initial: { code: '' },
    validate: (values) => validateSecondFactor(values, method),
    // Still busy after success, while the app navigates away.
    busy: verify.isPending || verify.isSuccess,
    onAttempt: () => setError(null),
    onValid: ({ code }) =>
      verify.mutate(
        { challenge_token: challenge.challenge_token, ...(method === 'totp' ? { code: code.trim() } : { recovery_code: code.trim() }) },
        { onSuccess: onSignedIn, onError: (err) => setError(failureText(err, MSG.generic)) },
      ),
  });
  const switchTo = (next: Method) => {
    setMethod(next);
    setError(null);
    form.reset();
  };
  const totp = method === 'totp';

  return (
    <form className="auth-form" onSubmit={form.onSubmit} noValidate aria-labelledby="two-factor-title">
      <h1 id="two-factor-title" ref={heading} tabIndex={-1}>
        {totp ? MSG.twoFactorHeading : MSG.recoveryHeading}
      </h1>
      <p className="auth-lead">{totp ? MSG.twoFactorLead : MSG.recoveryLead}</p>
      <Field
        key={method}
        id="two-factor-code"
        label={totp ? MSG.authenticationCode : MSG.recoveryCode}
        className={totp ? 'input auth-code' : 'input'}
        inputMode={totp ? 'numeric' : 'text'}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        maxLength={totp ? CODE_LENGTH : 11}
        value={form.values.code}
        error={form.errors.code}
        onChange={(e) => form.set('code', e.target.value)}
      />
      <Notice error={error} />
      <button type="submit" className="btn btn-primary btn-block" disabled={form.busy} aria-busy={form.busy}>
        {form.busy && <span className="spinner small" aria-hidden="true" />}
        {MSG.verify}
      </button>
      <div className="auth-row">
        <button type="button" className="link-button" onClick={onCancel}>
          {MSG.backToSignIn}
        </button>
        {challenge.methods.includes(totp ? 'recovery_code' : 'totp') && (
          <button type="button" className="link-button" onClick={() => switchTo(totp ? 'recovery_code' : 'totp')}>
            {totp ? MSG.useRecoveryCode : MSG.useAuthenticator}
          </button>
        )}
      </div>
    </form>
  );
}
