import constants from '@glob/contract/constants.json';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { ApiError, failureText } from '../../api/errors';
import { registerWithOtp, sendOtp, verifyOtp } from '../../api/queries/accounts';
import { useForm } from '../../components/useForm';
import { useCountdown } from '../session/countdown';
import { startSession } from '../../api/session';
import { CodeStep } from './CodeStep';
import { Field, NewPasswordFields, Notice } from './Field';
import { MSG, SIGNUP_RESEND_SECONDS } from './messages';
import { useStepCalls } from './useStepCalls';
import { validateCode, validateRegister, type RegisterValues } from './validation';

/** The spec's limits of what the form sends (RegisterWithOtpRequest). */
const LIMITS = constants.fieldLimits.RegisterWithOtpRequest;

export type RegisterStep = 'form' | 'otp';

const EMPTY: RegisterValues = { username: '', email: '', password: '', confirmPassword: '', acceptTerms: false };

/**
 * The form → POST send-otp (purpose signup; the 60 s resend countdown starts) → the code
 * step → POST verify-otp → POST register-with-otp with the verification token → the session → `onSignedIn`.
 */
export function RegisterFlow({ step, onStep, onSignedIn }: { step: RegisterStep; onStep: (step: RegisterStep) => void; onSignedIn: () => void }) {
  /** Where the last code went (a second Continue within the resend wait reuses it instead of a refused resend). */
  const [sentTo, setSentTo] = useState<string | null>(null);
  /** The verification token of a verified code, kept if creating the account fails (409, 422: the token stays usable). */
  const [verified, setVerified] = useState<{ email: string; token: string } | null>(null);
  /** How the server delivers e-mail, from its last answer (shown on the code step when codes go to its log). */
  const [delivery, setDelivery] = useState<'email' | 'server_log'>();
  const countdown = useCountdown();
  const { run, busy, error, info, setError, setInfo, clear } = useStepCalls();

  const form = useForm({
    initial: EMPTY,
    validate: validateRegister,
    busy,
    onAttempt: clear,
    onValid: () =>
      run(MSG.generic, async () => {
        if (verified?.email === email) {
          await createAccount(verified.token);
        } else if (sentTo === email && countdown.seconds > 0) {
          onStep('otp'); // the code sent a moment ago is still on its way
        } else {
          setDelivery((await sendOtp({ email, purpose: 'signup' })).delivery);
          setSentTo(email);
          codeForm.reset();
          countdown.start(SIGNUP_RESEND_SECONDS);
          onStep('otp');
        }
      }),
  });
  const { values, errors } = form;
  const email = values.email.trim();

  // verify-otp (unless this address already has a verified code), then the account; a refused code shows MSG.invalidCode.
  const codeForm = useForm({
    initial: { code: '' },
    validate: ({ code }) => ({ code: validateCode(code) }),
    busy,
    onAttempt: clear,
    onValid: ({ code }) =>
      run(MSG.invalidCode, async () => {
        let token = verified?.email === email ? verified.token : null;
        if (!token) {
          const answer = await verifyOtp({ email, otp: code.trim(), purpose: 'signup' });
          token = answer.verification_token || null;
          if (token) setVerified({ email, token });
        }
        await createAccount(token);
      }),
  });

  /** register-with-otp ('Email verification required' without a token), then the session. */
  const createAccount = async (token: string | null | undefined) => {
    if (!token) {
      setError(MSG.verificationRequired);
      return;
    }
    try {
      startSession(await registerWithOtp({ email, password: values.password, username: values.username.trim(), verification_token: token }));
      onSignedIn();
    } catch (err) {
      // 400: the token expired or was used — the next attempt needs a new code.
      if (err instanceof ApiError && err.status === 400) setVerified(null);
      setError(failureText(err, MSG.generic));
    }
  };

  const resend = () => {
    if (busy || countdown.seconds > 0) return;
    run(MSG.resendFailed, async () => {
      setDelivery((await sendOtp({ email, purpose: 'signup' })).delivery);
      setSentTo(email);
      setInfo(MSG.codeSent);
      countdown.start(SIGNUP_RESEND_SECONDS);
    });
  };

  const backToForm = () => {
    codeForm.reset();
    clear();
    onStep('form');
  };

  if (step === 'otp') {
    return (
      <CodeStep
        id="register-code"
        email={email}
        purpose="finish creating your account"
        code={codeForm.values.code}
        codeError={codeForm.errors.code}
        error={error}
        info={info}
        busy={busy}
        resendSeconds={countdown.seconds}
        delivery={delivery}
        backLabel="Back to registration"
        onCode={(value) => codeForm.set('code', value)}
        onSubmit={codeForm.onSubmit}
        onBack={backToForm}
        onResend={resend}
      />
    );
  }

  return (
    <form className="auth-form" onSubmit={form.onSubmit} noValidate>
      <Field
        id="register-username"
        label="Username"
        autoComplete="username"
        maxLength={LIMITS.username.maxLength}
        value={values.username}
        error={errors.username}
        onChange={(e) => form.set('username', e.target.value)}
      />
      <Field
        id="register-email"
        label="Email"
        type="email"
        autoComplete="email"
        maxLength={LIMITS.email.maxLength}
        value={values.email}
        error={errors.email}
        onChange={(e) => form.set('email', e.target.value)}
      />
      <NewPasswordFields idPrefix="register" label="Password" values={values} errors={errors} onEdit={form.set} />
      <div className="field">
        <div className="check">
          <input
            id="register-terms"
            type="checkbox"
            checked={values.acceptTerms}
            aria-invalid={errors.acceptTerms ? true : undefined}
            aria-describedby={errors.acceptTerms ? 'register-terms-error' : undefined}
            onChange={(e) => form.set('acceptTerms', e.target.checked)}
          />
          <label htmlFor="register-terms">
            I accept the <Link to="/terms-of-service">Terms of Service</Link> and the <Link to="/privacy-policy">Privacy Policy</Link>
          </label>
        </div>
        {errors.acceptTerms && (
          <span className="field-error" id="register-terms-error">
            {errors.acceptTerms}
          </span>
        )}
      </div>
      <Notice error={error} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>
        {busy && <span className="spinner small" aria-hidden="true" />}
        Continue
      </button>
    </form>
  );
}
