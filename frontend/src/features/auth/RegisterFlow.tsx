import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { ApiError, failureText } from '../../api/errors';
import { registerWithOtp, sendOtp, verifyOtp } from '../../api/queries/accounts';
import { useCountdown } from '../session/countdown';
import { startSession } from '../session/session';
import { CodeStep } from './CodeStep';
import { Field, NewPasswordFields, Notice, useFocusFirstError } from './Field';
import { MSG, SIGNUP_RESEND_SECONDS } from './messages';
import { validateCode, validateRegister, type FieldErrors, type RegisterValues } from './validation';

export type RegisterStep = 'form' | 'otp';

const EMPTY: RegisterValues = { username: '', email: '', password: '', confirmPassword: '', acceptTerms: false };

/**
 * The form → POST send-otp (purpose signup; the 60 s resend countdown starts) → the code
 * step → POST verify-otp → POST register-with-otp with the verification token → the session → `onSignedIn`.
 */
export function RegisterFlow({ step, onStep, onSignedIn }: { step: RegisterStep; onStep: (step: RegisterStep) => void; onSignedIn: () => void }) {
  const [values, setValues] = useState<RegisterValues>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<RegisterValues>>({});
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  // Kept over useMutation: one submit chains verify-otp and register-with-otp, so one flag spans both calls.
  const [busy, setBusy] = useState(false);
  /** Where the last code went (a second Continue within the resend wait reuses it instead of a refused resend). */
  const [sentTo, setSentTo] = useState<string | null>(null);
  /** The verification token of a verified code, kept if creating the account fails (409, 422: the token stays usable). */
  const [verified, setVerified] = useState<{ email: string; token: string } | null>(null);
  const countdown = useCountdown();
  const { formRef, refused } = useFocusFirstError();
  const codeForm = useFocusFirstError();
  const email = values.email.trim();

  const edit = <K extends keyof RegisterValues>(field: K, value: RegisterValues[K]) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };

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

  const submitForm = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateRegister(values);
    setErrors(found);
    setError(null);
    setInfo(null);
    if (Object.keys(found).length) return refused();
    setBusy(true);
    try {
      if (verified?.email === email) {
        await createAccount(verified.token);
      } else if (sentTo === email && countdown.seconds > 0) {
        onStep('otp'); // the code sent a moment ago is still on its way
      } else {
        await sendOtp({ email, purpose: 'signup' });
        setSentTo(email);
        setCode('');
        setCodeError(undefined);
        countdown.start(SIGNUP_RESEND_SECONDS);
        onStep('otp');
      }
    } catch (err) {
      setError(failureText(err, MSG.generic));
    } finally {
      setBusy(false);
    }
  };

  const submitCode = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateCode(code);
    setCodeError(found);
    setError(null);
    setInfo(null);
    if (found) return codeForm.refused();
    setBusy(true);
    try {
      let token = verified?.email === email ? verified.token : null;
      if (!token) {
        try {
          const answer = await verifyOtp({ email, otp: code.trim(), purpose: 'signup' });
          token = answer.verification_token || null;
        } catch (err) {
          setError(failureText(err, MSG.invalidCode));
          return;
        }
        if (token) setVerified({ email, token });
      }
      await createAccount(token);
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    if (busy || countdown.seconds > 0) return;
    setError(null);
    setInfo(null);
    setBusy(true);
    try {
      await sendOtp({ email, purpose: 'signup' });
      setSentTo(email);
      setInfo(MSG.codeSent);
      countdown.start(SIGNUP_RESEND_SECONDS);
    } catch (err) {
      setError(failureText(err, MSG.resendFailed));
    } finally {
      setBusy(false);
    }
  };

  const backToForm = () => {
    setCode('');
    setCodeError(undefined);
    setError(null);
    setInfo(null);
    onStep('form');
  };

  if (step === 'otp') {
    return (
      <CodeStep
        id="register-code"
        email={email}
        purpose="finish creating your account"
        formRef={codeForm.formRef}
        code={code}
        codeError={codeError}
        error={error}
        info={info}
        busy={busy}
        resendSeconds={countdown.seconds}
        backLabel="Back to registration"
        onCode={(value) => {
          setCode(value);
          setCodeError(undefined);
        }}
        onSubmit={submitCode}
        onBack={backToForm}
        onResend={resend}
      />
    );
  }

  return (
    <form ref={formRef} className="auth-form" onSubmit={submitForm} noValidate>
      <Field
        id="register-username"
        label="Username"
        autoComplete="username"
        maxLength={50}
        value={values.username}
        error={errors.username}
        onChange={(e) => edit('username', e.target.value)}
      />
      <Field
        id="register-email"
        label="Email"
        type="email"
        autoComplete="email"
        maxLength={254}
        value={values.email}
        error={errors.email}
        onChange={(e) => edit('email', e.target.value)}
      />
      <NewPasswordFields idPrefix="register" label="Password" values={values} errors={errors} onEdit={edit} />
      <div className="field">
        <div className="check">
          <input
            id="register-terms"
            type="checkbox"
            checked={values.acceptTerms}
            aria-invalid={errors.acceptTerms ? true : undefined}
            aria-describedby={errors.acceptTerms ? 'register-terms-error' : undefined}
            onChange={(e) => edit('acceptTerms', e.target.checked)}
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
