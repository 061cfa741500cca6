import constants from '@glob/contract/constants.json';
import { Link } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { accountDeletionMutations, type TwoFactorChallenge } from '../../api/queries/accounts';
import { useForm } from '../../components/useForm';
import { MSG } from '../auth/messages';
import { formatMinSec, useCountdown } from '../session/countdown';
import { failureText } from '../../api/errors';
import { DELETION_CODE_LENGTH, DELETION_CODE_SECONDS, DELETION_MSG, type DeletionStep } from './messages';
import './deletion.css';
import { useStepFocus } from '../session/useStepFocus';

const STEPS: { id: DeletionStep; label: string }[] = [
  { id: 'email', label: 'E-mail' },
  { id: 'otp', label: 'Code' },
  { id: 'confirm', label: 'Confirm' },
  { id: 'success', label: 'Done' },
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * /account-deletion: no sign-in; ownership of the e-mail is proved by a 6-digit code.
 * email → (code sent, 300 s countdown) otp → (code verified) confirm → (account deleted) success.
 * Back on otp resets everything to email; Cancel on confirm returns to otp; 'Resend verification code'
 * appears when the countdown reaches 0 and returns to the email step. An account with two-factor sign-in is deleted
 * only with its second factor too: the confirm step then asks for an authenticator code, a recovery code or a passkey.
 */
export function AccountDeletionFlow() {
  const [step, setStep] = useState<DeletionStep>('email');
  /** The last call's failure, in the alert line (which also shows a refused e-mail address). */
  const [error, setError] = useState<string | null>(null);
  /** verify-deletion-otp's challenge, for an account with two-factor sign-in (null: the e-mailed code is enough). */
  const [twoFactor, setTwoFactor] = useState<TwoFactorChallenge | null>(null);
  const [factorMethod, setFactorMethod] = useState<'totp' | 'recovery_code'>('totp');
  const [factorCode, setFactorCode] = useState('');
  const sendOtp = useMutation(accountDeletionMutations.sendOtp());
  const verifyOtp = useMutation(accountDeletionMutations.verifyOtp());
  const deleteAccount = useMutation(accountDeletionMutations.deleteAccount());
  const deleteWithPasskey = useMutation(accountDeletionMutations.deleteAccountWithPasskey());
  const busy = sendOtp.isPending || verifyOtp.isPending || deleteAccount.isPending || deleteWithPasskey.isPending;
  const countdown = useCountdown();
  const heading = useStepFocus(step);

  const go = (next: DeletionStep) => {
    setError(null);
    setStep(next);
  };

  // Send stays disabled while the address is empty; an address that is not one is refused in the alert line.
  const emailForm = useForm({
    initial: { email: '' },
    validate: ({ email }) => ({ email: EMAIL.test(email.trim()) ? undefined : DELETION_MSG.sendFailed }),
    busy,
    onAttempt: () => setError(null),
    onValid: ({ email }) =>
      sendOtp.mutate(
        { email: email.trim() },
        {
          onSuccess: () => {
            codeForm.reset();
            countdown.start(DELETION_CODE_SECONDS);
            go('otp');
          },
          onError: (err) => setError(failureText(err, DELETION_MSG.sendFailed, DELETION_MSG.network)),
        },
      ),
  });
  const address = emailForm.values.email.trim();

  // Verify stays disabled until the code has its 6 digits.
  const codeForm = useForm({
    initial: { code: '' },
    busy,
    onAttempt: () => setError(null),
    onValid: ({ code }) => {
      if (code.length !== DELETION_CODE_LENGTH) return;
      verifyOtp.mutate(
        { email: address, otp: code },
        {
          onSuccess: (answer) => {
            setTwoFactor(answer.two_factor ?? null);
            const codeMethods = answer.two_factor?.methods.filter((m) => m !== 'passkey') ?? [];
            setFactorMethod(codeMethods[0] === 'recovery_code' ? 'recovery_code' : 'totp');
            setFactorCode('');
            go('confirm');
          },
          onError: (err) => setError(failureText(err, DELETION_MSG.invalidCode, DELETION_MSG.network)),
        },
      );
    },
  });
  const { code } = codeForm.values;

  const deleted = () => {
    countdown.stop();
    codeForm.reset();
    setFactorCode('');
    setTwoFactor(null);
    go('success');
  };
  const factorCodes = twoFactor?.methods.filter((m): m is 'totp' | 'recovery_code' => m !== 'passkey') ?? [];
  const factorReady = !twoFactor || (factorCodes.length > 0 && factorCode.trim().length >= (factorMethod === 'totp' ? DELETION_CODE_LENGTH : 1));

  const confirm = () => {
    if (busy || !factorReady) return;
    setError(null);
    const second = twoFactor
      ? {
          challenge_token: twoFactor.challenge_token,
          ...(factorMethod === 'totp' ? { code: factorCode.trim() } : { recovery_code: factorCode.trim() }),
        }
      : {};
    deleteAccount.mutate(
      { email: address, otp: code, ...second },
      { onSuccess: deleted, onError: (err) => setError(failureText(err, DELETION_MSG.deleteFailed, DELETION_MSG.network)) },
    );
  };

  const confirmWithPasskey = () => {
    if (busy || !twoFactor) return;
    setError(null);
    deleteWithPasskey.mutate(
      { email: address, otp: code, challenge_token: twoFactor.challenge_token },
      { onSuccess: deleted, onError: (err) => setError(failureText(err, DELETION_MSG.passkeyFailed, DELETION_MSG.passkeyFailed)) },
    );
  };

  /** Back on otp: everything resets (e-mail, code, countdown, message) and the flow starts again. */
  const back = () => {
    emailForm.reset();
    codeForm.reset();
    countdown.stop();
    go('email');
  };

  /** At 0: back to the email step (the address kept) to ask for a new code. */
  const resend = () => {
    codeForm.reset();
    go('email');
  };

  const index = STEPS.findIndex((s) => s.id === step);
  const shown = emailForm.errors.email ?? error;
  const alert = shown && (
    <div id="deletion-alert" className="alert alert-error deletion-alert" role="alert">
      {shown}
    </div>
  );

  return (
    <div className="card deletion-card">
      <ol className="deletion-steps" aria-label="Progress">
        {STEPS.map((s, i) => (
          <li key={s.id} className={i < index ? 'done' : i === index ? 'current' : undefined} aria-current={i === index ? 'step' : undefined}>
            <span className="deletion-step-number" aria-hidden="true">
              {i + 1}
            </span>
            <span>{s.label}</span>
          </li>
        ))}
      </ol>

      {step === 'email' && (
        <form onSubmit={emailForm.onSubmit} noValidate>
          <h2 id="deletion-title" ref={heading} tabIndex={-1}>
            Enter your e-mail
          </h2>
          <p>We will e-mail a {DELETION_CODE_LENGTH}-digit code to the address of the account you want to delete.</p>
          <div className="field">
            <label htmlFor="deletion-email">Email address</label>
            <input
              id="deletion-email"
              className="input"
              type="email"
              autoComplete="email"
              maxLength={constants.fieldLimits.DeletionOtpRequest.email.maxLength}
              required
              value={emailForm.values.email}
              aria-invalid={emailForm.errors.email ? true : undefined}
              aria-describedby={emailForm.errors.email ? 'deletion-alert' : undefined}
              onChange={(e) => {
                emailForm.set('email', e.target.value);
                setError(null);
              }}
            />
          </div>
          {alert}
          <button type="submit" className="btn btn-primary" disabled={!address || busy} aria-busy={busy}>
            {busy && <span className="spinner small" aria-hidden="true" />}
            Send verification code
          </button>
        </form>
      )}

      {step === 'otp' && (
        <form onSubmit={codeForm.onSubmit} noValidate>
          <h2 id="deletion-title" ref={heading} tabIndex={-1}>
            Enter the verification code
          </h2>
          <p>
            If <strong className="deletion-address">{address}</strong> belongs to an account, a {DELETION_CODE_LENGTH}-digit code is on its way. Enter
            it below.
          </p>
          <div className="field">
            <label htmlFor="deletion-code">Verification code</label>
            <input
              id="deletion-code"
              className="input deletion-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={DELETION_CODE_LENGTH}
              aria-describedby="deletion-countdown"
              value={code}
              onChange={(e) => {
                codeForm.set('code', e.target.value.replace(/\D/g, '').slice(0, DELETION_CODE_LENGTH));
                setError(null);
              }}
            />
            <span className="hint" id="deletion-countdown">
              {countdown.seconds > 0 ? `Code expires in ${formatMinSec(countdown.seconds)}` : 'The code has expired.'}
            </span>
          </div>
          {alert}
          <div className="btn-row">
            <button type="submit" className="btn btn-primary" disabled={code.length !== DELETION_CODE_LENGTH || busy} aria-busy={busy}>
              {busy && <span className="spinner small" aria-hidden="true" />}
              Verify
            </button>
            <button type="button" className="btn" onClick={back} disabled={busy}>
              Back
            </button>
            {countdown.seconds === 0 && (
              <button type="button" className="btn btn-ghost" onClick={resend}>
                Resend verification code
              </button>
            )}
          </div>
        </form>
      )}

      {step === 'confirm' && (
        <div>
          <h2 id="deletion-title" ref={heading} tabIndex={-1}>
            Confirm account deletion
          </h2>
          <div className="alert alert-warn deletion-warning">
            <div>
              <p>
                <strong>This cannot be undone.</strong> Deleting the account of <strong className="deletion-address">{address}</strong>:
              </p>
              <ul>
                <li>signs it out everywhere,</li>
                <li>removes your e-mail, username, linked sign-ins, conversations and notifications,</li>
                <li>loses any remaining GLOB balance (transaction records are kept anonymised for 7 years).</li>
              </ul>
            </div>
          </div>
          {twoFactor && (
            <div className="deletion-second-factor">
              <p>{DELETION_MSG.secondFactorLead}</p>
              {factorCodes.length > 0 && (
                <div className="field">
                  <label htmlFor="deletion-factor-code">{factorMethod === 'totp' ? MSG.authenticationCode : MSG.recoveryCode}</label>
                  <input
                    key={factorMethod}
                    id="deletion-factor-code"
                    className={factorMethod === 'totp' ? 'input deletion-code' : 'input'}
                    inputMode={factorMethod === 'totp' ? 'numeric' : 'text'}
                    autoComplete="one-time-code"
                    autoCapitalize="off"
                    spellCheck={false}
                    maxLength={factorMethod === 'totp' ? DELETION_CODE_LENGTH : 11}
                    value={factorCode}
                    onChange={(e) => {
                      setFactorCode(e.target.value);
                      setError(null);
                    }}
                  />
                  {factorCodes.length > 1 && (
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => {
                        setFactorMethod(factorMethod === 'totp' ? 'recovery_code' : 'totp');
                        setFactorCode('');
                        setError(null);
                      }}
                    >
                      {factorMethod === 'totp' ? MSG.useRecoveryCode : MSG.useAuthenticator}
                    </button>
                  )}
                </div>
              )}
            </div>
          )}
          {alert}
          <div className="btn-row">
            {(!twoFactor || factorCodes.length > 0) && (
              <button type="button" className="btn btn-danger" onClick={confirm} disabled={busy || !factorReady} aria-busy={deleteAccount.isPending}>
                {deleteAccount.isPending && <span className="spinner small" aria-hidden="true" />}
                Delete my account
              </button>
            )}
            {twoFactor?.methods.includes('passkey') && (
              <button type="button" className="btn btn-danger" onClick={confirmWithPasskey} disabled={busy} aria-busy={deleteWithPasskey.isPending}>
                {deleteWithPasskey.isPending && <span className="spinner small" aria-hidden="true" />}
                {MSG.usePasskey}
              </button>
            )}
            <button type="button" className="btn" onClick={() => go('otp')} disabled={busy}>
              Cancel
            </button>
          </div>
        </div>
      )}

      {step === 'success' && (
        <div role="status">
          <h2 id="deletion-title" ref={heading} tabIndex={-1}>
            Your account has been deleted
          </h2>
          <p>Every session has been signed out and your personal data removed. You can sign up again with the same e-mail at any time.</p>
          <Link to="/" className="btn btn-primary">
            Go to the home page
          </Link>
        </div>
      )}
    </div>
  );
}
