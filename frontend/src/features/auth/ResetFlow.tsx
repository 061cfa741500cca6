import { useState, type FormEvent } from 'react';
import { resetPassword, sendOtp, verifyOtp } from '../../api/queries/accounts';
import { useCountdown } from '../session/countdown';
import { failureText } from '../../api/errors';
import { startSession } from '../session/session';
import { CodeStep } from './CodeStep';
import { Field, NewPasswordFields, Notice, useFocusFirstError } from './Field';
import { MSG, SIGNUP_RESEND_SECONDS } from './messages';
import { validateCode, validateEmail, validateNewPassword, type FieldErrors, type NewPasswordValues } from './validation';

export type ResetStep = 'email' | 'code' | 'password';

/**
 * 'Forgot password?': the e-mail → POST send-otp (purpose password_reset; the same answer whether or not the
 * address has an account, and the 60 s resend countdown starts) → the code → POST verify-otp → a new password →
 * POST reset-password, which ends every other session and signs this one in → `onSignedIn`.
 */
export function ResetFlow({
  step,
  onStep,
  onSignedIn,
  onCancel,
}: {
  step: ResetStep;
  onStep: (step: ResetStep) => void;
  onSignedIn: () => void;
  onCancel: () => void;
}) {
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | undefined>();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const [token, setToken] = useState<string | null>(null);
  const [values, setValues] = useState<NewPasswordValues>({ password: '', confirmPassword: '' });
  const [errors, setErrors] = useState<FieldErrors<NewPasswordValues>>({});
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const countdown = useCountdown();
  const { formRef: emailFormRef, refused: emailRefused } = useFocusFirstError();
  const { formRef: codeFormRef, refused: codeRefused } = useFocusFirstError();
  const { formRef: passwordFormRef, refused: passwordRefused } = useFocusFirstError();
  const address = email.trim();

  /** Runs one request with the busy flag and the outcome line; the failure text is the server's message or `fallback`. */
  // Kept over useMutation: this one helper gives every step's call (send, resend, verify, reset) one busy flag and one notice line.
  const run = async (fallback: string, work: () => Promise<void>) => {
    setError(null);
    setInfo(null);
    setBusy(true);
    try {
      await work();
    } catch (err) {
      setError(failureText(err, fallback));
    } finally {
      setBusy(false);
    }
  };

  const send = () =>
    run(MSG.generic, async () => {
      await sendOtp({ email: address, purpose: 'password_reset' });
      countdown.start(SIGNUP_RESEND_SECONDS);
      setCode('');
      setCodeError(undefined);
      onStep('code');
    });

  const submitEmail = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateEmail(email);
    setEmailError(found);
    if (found) return emailRefused();
    void send();
  };

  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateCode(code);
    setCodeError(found);
    if (found) return codeRefused();
    void run(MSG.invalidCode, async () => {
      const answer = await verifyOtp({ email: address, otp: code.trim(), purpose: 'password_reset' });
      setToken(answer.verification_token);
      onStep('password');
    });
  };

  const resend = () => {
    if (busy || countdown.seconds > 0) return;
    void run(MSG.resendFailed, async () => {
      await sendOtp({ email: address, purpose: 'password_reset' });
      setInfo(MSG.codeSent);
      countdown.start(SIGNUP_RESEND_SECONDS);
    });
  };

  const submitPassword = (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const found = validateNewPassword(values);
    setErrors(found);
    if (Object.keys(found).length) return passwordRefused();
    if (!token) {
      setError(MSG.verificationRequired);
      return;
    }
    void run(MSG.generic, async () => {
      startSession(await resetPassword({ email: address, password: values.password, verification_token: token }));
      onSignedIn();
    });
  };

  const edit = (field: keyof NewPasswordValues, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
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
        formRef={codeFormRef}
        code={code}
        codeError={codeError}
        error={error}
        info={info}
        busy={busy}
        resendSeconds={countdown.seconds}
        backLabel={MSG.backToSignIn}
        onCode={(value) => {
          setCode(value);
          setCodeError(undefined);
        }}
        onSubmit={submitCode}
        onBack={onCancel}
        onResend={resend}
      />
    );
  }

  if (step === 'password') {
    return (
      <form ref={passwordFormRef} className="auth-form" onSubmit={submitPassword} noValidate>
        <NewPasswordFields idPrefix="reset" label="New Password" values={values} errors={errors} onEdit={edit} />
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
    <form ref={emailFormRef} className="auth-form" onSubmit={submitEmail} noValidate>
      <p className="auth-lead">Enter the e-mail address of your account and we will send you a code to choose a new password.</p>
      <Field
        id="reset-email"
        label="Email"
        type="email"
        autoComplete="email"
        maxLength={254}
        value={email}
        error={emailError}
        onChange={(e) => {
          setEmail(e.target.value);
          setEmailError(undefined);
        }}
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
