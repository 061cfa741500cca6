import type { FormEvent } from 'react';
import { Field, Notice } from './Field';
import { CODE_LENGTH, MSG } from './messages';

/**
 * The step where an e-mailed code is entered, shared by sign-up and password reset: the code field, the outcome
 * line, 'Verify Code', a way back, and a resend action that waits out its countdown.
 */
export function CodeStep({
  id,
  email,
  purpose,
  code,
  codeError,
  error,
  info,
  busy,
  resendSeconds,
  delivery,
  backLabel,
  onCode,
  onSubmit,
  onBack,
  onResend,
}: {
  id: string;
  email: string;
  /** What the code finishes, e.g. 'finish creating your account'. */
  purpose: string;
  code: string;
  codeError: string | undefined;
  error: string | null;
  info: string | null;
  busy: boolean;
  resendSeconds: number;
  /** How the server delivers e-mail (send-otp's answer); `server_log`: the code is in its log, which this step says. */
  delivery: 'email' | 'server_log' | undefined;
  backLabel: string;
  onCode: (code: string) => void;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  onBack: () => void;
  onResend: () => void;
}) {
  return (
    <form className="auth-form" onSubmit={onSubmit} noValidate>
      <p className="auth-lead">
        We sent a {CODE_LENGTH}-digit code to <strong>{email}</strong>. Enter it below to {purpose}.
      </p>
      {delivery === 'server_log' && <p className="auth-hint">{MSG.codeInServerLog}</p>}
      <Field
        id={id}
        label="Verification code"
        className="input auth-code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={CODE_LENGTH}
        value={code}
        error={codeError}
        onChange={(e) => onCode(e.target.value)}
      />
      <Notice error={error} info={info} />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} aria-busy={busy}>
        {busy && <span className="spinner small" aria-hidden="true" />}
        Verify Code
      </button>
      <div className="auth-row">
        <button type="button" className="link-button" onClick={onBack}>
          {backLabel}
        </button>
        <button type="button" className="link-button" onClick={onResend} disabled={busy || resendSeconds > 0}>
          {resendSeconds > 0 ? `Resend code in ${resendSeconds}s` : 'Resend code'}
        </button>
      </div>
    </form>
  );
}
