import constants from '@glob/contract/constants.json';
import { useState } from 'react';
import { resetPassword, sendOtp, startSessionOf, verifyOtp, type TwoFactorChallenge } from '../../api/queries/accounts';
import { useForm } from '../../components/useForm';
import { useCountdown } from '../session/countdown';
import { CodeStep } from './CodeStep';
import { Field, NewPasswordFields, Notice } from './Field';
import { MSG, SIGNUP_RESEND_SECONDS } from './messages';
import { useStepCalls } from './useStepCalls';
import { validateCode, validateEmail, validateNewPassword, type NewPasswordValues } from './validation';

export type ResetStep = 'email' | 'code' | 'password';

const NO_PASSWORD: NewPasswordValues = { password: '', confirmPassword: '' };

/**
 * 'Forgot password?': the e-mail → POST send-otp (purpose password_reset; the same answer whether or not the
 * address has an account, and the 60 s resend countdown starts) → the code → POST verify-otp → a new password →
 * POST reset-password, which ends every other session and signs this one in → `onSignedIn` (two-factor sign-in on:
 * `onChallenge`, whose step finishes the reset).
 */
export function ResetFlow({
  step,
  onStep,
  onSignedIn,
  onChallenge,
  onCancel,
}: {
  step: ResetStep;
  onStep: (step: ResetStep) => void;
  onSignedIn: () => void;
  onChallenge: (challenge: TwoFactorChallenge) => void;
  onCancel: () => void;
}) {
  const [token, setToken] = useState<string | null>(null);
  /** How the server delivers e-mail, from its last answer (shown on the code step when codes go to its log). */
  const [delivery, setDelivery] = useState<'email' | 'server_log'>();
  const countdown = useCountdown();
  const { run, busy, error, info, setError, setInfo } = useStepCalls();

  const emailForm = useForm({
    initial: { email: '' },
    validate: ({ email }) => ({ email: validateEmail(email) }),
    busy,
    onValid: () =>
      run(MSG.generic, async () => {
        setDelivery((await sendOtp({ email: address, purpose: 'password_reset' })).delivery);
        countdown.start(SIGNUP_RESEND_SECONDS);
        codeForm.reset();
        onStep('code');
      }),
  });
  const address = emailForm.values.email.trim();

  const codeForm = useForm({
    initial: { code: '' },
    validate: ({ code }) => ({ code: validateCode(code) }),
    busy,
    onValid: ({ code }) =>
      run(MSG.invalidCode, async () => {
        const answer = await verifyOtp({ email: address, otp: code.trim(), purpose: 'password_reset' });
        setToken(answer.verification_token);
        onStep('password');
      }),
  });

  const passwordForm = useForm({
    initial: NO_PASSWORD,
    validate: validateNewPassword,
    busy,
    onValid: ({ password }) => {
      if (!token) {
        setError(MSG.verificationRequired);
        return;
      }
      run(MSG.generic, async () => {
        const challenge = startSessionOf(await resetPassword({ email: address, password, verification_token: token }));
        if (challenge) onChallenge(challenge);
        else onSignedIn();
      });
    },
  });

  const resend = () => {
    if (busy || countdown.seconds > 0) return;
    run(MSG.resendFailed, async () => {
      setDelivery((await sendOtp({ email: address, purpose: 'password_reset' })).delivery);
      setInfo(MSG.codeSent);
      countdown.start(SIGNUP_RESEND_SECONDS);
    });
  };

  const back = (
    <div className="auth-row">
      <button type="button" className="link-button" onClick={onCancel}>
        {MSG.backToSignIn}
      </button>
    </div>
  );

  if (step === 'code') {
    return (
      <CodeStep
        id="reset-code"
        email={address}
        purpose="choose a new password"
        code={codeForm.values.code}
        codeError={codeForm.errors.code}
        error={error}
        info={info}
        busy={busy}
        resendSeconds={countdown.seconds}
        delivery={delivery}
        backLabel={MSG.backToSignIn}
        onCode={(value) => codeForm.set('code', value)}
        onSubmit={codeForm.onSubmit}
        onBack={onCancel}
        onResend={resend}
      />
    );
  }

  if (step === 'password') {
    return (
      <form className="auth-form" onSubmit={passwordForm.onSubmit} noValidate>
        <NewPasswordFields
          idPrefix="reset"
          label="New Password"
          values={passwordForm.values}
          errors={passwordForm.errors}
          onEdit={passwordForm.set}
        />
        <Notice error={error} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner small" aria-hidden="true" />}
          {MSG.setNewPassword}
        </button>
        {back}
      </form>
    );
  }

  return (
    <form className="auth-form" onSubmit={emailForm.onSubmit} noValidate>
      <p className="auth-lead">Enter the e-mail address of your account and we will send you a code to choose a new password.</p>
      <Field
        id="reset-email"
        label="Email"
        type="email"
        autoComplete="email"
        maxLength={constants.fieldLimits.ResetPasswordRequest.email.maxLength}
        value={emailForm.values.email}
        error={emailForm.errors.email}
        onChange={(e) => emailForm.set('email', e.target.value)}
      />
      <Notice error={error} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>
        {busy && <span className="spinner small" aria-hidden="true" />}
        {MSG.sendCode}
      </button>
      {back}
    </form>
  );
}
