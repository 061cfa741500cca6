import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { failureText } from '../../api/errors';
import { loginPasskeyMutation, loginTwoFactorMutation, type TwoFactorChallenge } from '../../api/queries/accounts';
import { useForm } from '../../components/useForm';
import { Field, Notice } from './Field';
import { CODE_LENGTH, MSG } from './messages';
import { validateSecondFactor } from './validation';

type CodeMethod = Exclude<TwoFactorChallenge['methods'][number], 'passkey'>;

/**
 * The second step of a sign-in to an account with two-factor sign-in on (after the password, a social sign-in or a
 * password reset): the authenticator app's code, one of the recovery codes, or a passkey, whichever the account has;
 * the session starts once one is right.
 */
export function TwoFactorStep({ challenge, onSignedIn, onCancel }: { challenge: TwoFactorChallenge; onSignedIn: () => void; onCancel: () => void }) {
  const codeMethods = challenge.methods.filter((m): m is CodeMethod => m !== 'passkey');
  const hasPasskey = challenge.methods.includes('passkey');
  const [method, setMethod] = useState<CodeMethod | null>(codeMethods[0] ?? null);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The step replaced the form the user was in: keyboard and screen-reader users land on its heading.
  useEffect(() => heading.current?.focus(), [method]);
  const verify = useMutation(loginTwoFactorMutation());
  const passkey = useMutation(loginPasskeyMutation());
  const busy = verify.isPending || verify.isSuccess || passkey.isPending || passkey.isSuccess;
  const form = useForm({
    initial: { code: '' },
    validate: (values) => validateSecondFactor(values, method ?? 'totp'),
    // Still busy after success, while the app navigates away.
    busy,
    onAttempt: () => setError(null),
    onValid: ({ code }) =>
      verify.mutate(
        { challenge_token: challenge.challenge_token, ...(method === 'totp' ? { code: code.trim() } : { recovery_code: code.trim() }) },
        { onSuccess: onSignedIn, onError: (err) => setError(failureText(err, MSG.generic)) },
      ),
  });
  const switchTo = (next: CodeMethod) => {
    setMethod(next);
    setError(null);
    form.reset();
  };
  const usePasskey = () => {
    setError(null);
    passkey.mutate(challenge.challenge_token, {
      onSuccess: onSignedIn,
      onError: (err) => setError(failureText(err, MSG.passkeyFailed, MSG.passkeyFailed)),
    });
  };
  const other = method === 'totp' ? 'recovery_code' : 'totp';
  const title = method === 'totp' ? MSG.twoFactorHeading : method === 'recovery_code' ? MSG.recoveryHeading : MSG.passkeyHeading;
  const lead = method === 'totp' ? MSG.twoFactorLead : method === 'recovery_code' ? MSG.recoveryLead : MSG.passkeyLead;

  return (
    <form className="auth-form" onSubmit={form.onSubmit} noValidate aria-labelledby="two-factor-title">
      <h1 id="two-factor-title" ref={heading} tabIndex={-1}>
        {title}
      </h1>
      <p className="auth-lead">{lead}</p>
      {method && (
        <>
          <Field
            key={method}
            id="two-factor-code"
            label={method === 'totp' ? MSG.authenticationCode : MSG.recoveryCode}
            className={method === 'totp' ? 'input auth-code' : 'input'}
            inputMode={method === 'totp' ? 'numeric' : 'text'}
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellCheck={false}
            maxLength={method === 'totp' ? CODE_LENGTH : 11}
            value={form.values.code}
            error={form.errors.code}
            onChange={(e) => form.set('code', e.target.value)}
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={verify.isPending}>
            {verify.isPending && <span className="spinner small" aria-hidden="true" />}
            {MSG.verify}
          </button>
        </>
      )}
      <Notice error={error} />
      {hasPasskey && (
        <button
          type="button"
          className={method ? 'btn btn-block' : 'btn btn-primary btn-block'}
          disabled={busy}
          aria-busy={passkey.isPending}
          onClick={usePasskey}
        >
          {passkey.isPending && <span className="spinner small" aria-hidden="true" />}
          {MSG.usePasskey}
        </button>
      )}
      <div className="auth-row">
        <button type="button" className="link-button" onClick={onCancel}>
          {MSG.backToSignIn}
        </button>
        {method && codeMethods.includes(other) && (
          <button type="button" className="link-button" onClick={() => switchTo(other)}>
            {method === 'totp' ? MSG.useRecoveryCode : MSG.useAuthenticator}
          </button>
        )}
      </div>
    </form>
  );
}
