import { useMutation, useQuery } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { useId, useRef, useState } from 'react';
import { failureText } from '../../api/errors';
import { securityMutations, securityQueries, type TotpSetup, type TwoFactorProof } from '../../api/queries/security';
import { CopyButton } from '../../components/CopyButton';
import { formatDate } from '../../components/format';
import { useForm } from '../../components/useForm';
// The sign-in screens' labelled input and outcome line: the same fields, the same wiring for assistive technology.
import { Field, Notice } from '../auth/Field';
import { PasskeysSection } from './PasskeysSection';
import { SessionsSection } from './SessionsSection';
import { SECURITY_TEXTS as T } from './texts';
import './security.css';

const SIX_DIGITS = /^\d{6}$/;
const RECOVERY = /^[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}$/;

/** A code the user typed: the authenticator's 6 digits, or else a recovery code. */
const proofOf = (value: string): TwoFactorProof => (SIX_DIGITS.test(value.trim()) ? { code: value.trim() } : { recovery_code: value.trim() });

/** The recovery codes, shown once, with a way to copy them all. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const titleId = useId();
  return (
    <section className="card security-codes" aria-labelledby={titleId}>
      <h3 id={titleId}>{T.recoveryTitle}</h3>
      <p>{T.recoveryText}</p>
      <ol className="security-code-list" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div className="security-actions">
        <CopyButton text={codes.join('\n')} label={T.copyCodes} copiedLabel={T.copied} failedLabel={T.copyFailed} />
        <button type="button" className="btn btn-primary" onClick={onDone}>
          {T.saved}
        </button>
      </div>
    </section>
  );
}

/** A started setup: the QR code (drawn here, from the URI: the secret never leaves for an image service), the key, the first code. */
function Enrol({ setup, onCodes, onCancel }: { setup: TotpSetup; onCodes: (codes: string[]) => void; onCancel: () => void }) {
  const confirm = useMutation(securityMutations.confirm());
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const form = useForm({
    initial: { code: '' },
    validate: ({ code }) => ({ code: !code.trim() ? T.codeRequired : SIX_DIGITS.test(code.trim()) ? undefined : T.codeDigits }),
    busy: confirm.isPending,
    onAttempt: () => setError(null),
    onValid: ({ code }) => confirm.mutate(code.trim(), { onSuccess: onCodes, onError: (err) => setError(failureText(err, T.failed)) }),
  });
  return (
    <form className="security-enrol" onSubmit={form.onSubmit} noValidate>
      <p>{T.scan}</p>
      <div className="security-qr">
        <QRCodeSVG value={setup.otpauth_uri} size={192} marginSize={2} title={T.qrTitle} role="img" aria-label={T.qrTitle} />
      </div>
      <p className="security-secret">
        <span>{T.secretLabel}: </span>
        <code data-testid="totp-secret">{setup.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
      </p>
      <CopyButton text={setup.secret} label={T.copySecret} copiedLabel={T.copied} failedLabel={T.copyFailed} />
      <Field
        id={`${id}-code`}
        label={T.codeLabel}
        className="input security-code-input"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        value={form.values.code}
        error={form.errors.code}
        onChange={(e) => form.set('code', e.target.value)}
      />
      <Notice error={error} />
      <div className="security-actions">
        <button type="submit" className="btn btn-primary" disabled={form.busy} aria-busy={form.busy}>
          {form.busy ? T.turningOn : T.turnOn}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          {T.cancel}
        </button>
      </div>
    </form>
  );
}

/** Two-factor sign-in is on: a current code (or a recovery code) turns it off or replaces the recovery codes. */
function Manage({ since, codesLeft, onCodes }: { since: string; codesLeft: number; onCodes: (codes: string[]) => void }) {
  const disable = useMutation(securityMutations.disable());
  const regenerate = useMutation(securityMutations.regenerate());
  const [error, setError] = useState<string | null>(null);
  // Which button submitted: set in its click, read in the same event's submit (state would be a render late).
  const action = useRef<'off' | 'codes'>('off');
  const id = useId();
  const form = useForm({
    initial: { code: '' },
    validate: ({ code }) => ({
      code: !code.trim() ? T.proofRequired : SIX_DIGITS.test(code.trim()) || RECOVERY.test(code.trim()) ? undefined : T.proofInvalid,
    }),
    busy: disable.isPending || regenerate.isPending,
    onAttempt: () => setError(null),
    onValid: ({ code }) => {
      const onError = (err: Error) => setError(failureText(err, T.failed));
      if (action.current === 'off') disable.mutate(proofOf(code), { onSuccess: () => form.reset(), onError });
      else regenerate.mutate(proofOf(code), { onSuccess: (codes) => (form.reset(), onCodes(codes)), onError });
    },
  });
  return (
    <form className="security-manage" onSubmit={form.onSubmit} noValidate>
      <p role="status">
        {T.on(formatDate(since))} {T.codesLeft(codesLeft)}
      </p>
      <Field
        id={`${id}-proof`}
        label={T.proofLabel}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        maxLength={11}
        value={form.values.code}
        error={form.errors.code}
        onChange={(e) => form.set('code', e.target.value)}
      />
      <Notice error={error} />
      <div className="security-actions">
        <button type="submit" className="btn" disabled={form.busy} onClick={() => (action.current = 'codes')}>
          {T.newCodes}
        </button>
        <button type="submit" className="btn btn-danger" disabled={form.busy} onClick={() => (action.current = 'off')}>
          {T.turnOff}
        </button>
      </div>
    </form>
  );
}

/** "Security": two-factor sign-in with an authenticator app (set up, recovery codes, turn off). */
export function SecurityPage() {
  const status = useQuery(securityQueries.twoFactor());
  const start = useMutation(securityMutations.startSetup());
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const shown = (next: string[]) => {
    setSetup(null);
    setCodes(next);
  };

  return (
    <div className="app-page security">
      <header className="app-page-head">
        <h1>{T.title}</h1>
        <p>{T.intro}</p>
      </header>
      <section className="card app-section" aria-labelledby={titleId}>
        <h2 id={titleId}>{T.twoFactorTitle}</h2>
        {codes ? (
          <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
        ) : status.isPending ? (
          <p role="status">{T.loading}</p>
        ) : status.isError ? (
          <p className="alert alert-error" role="alert">
            {T.loadError}
          </p>
        ) : status.data.totp_enabled ? (
          <Manage since={status.data.enabled_at ?? ''} codesLeft={status.data.recovery_codes_left} onCodes={shown} />
        ) : setup ? (
          <Enrol setup={setup} onCodes={shown} onCancel={() => setSetup(null)} />
        ) : (
          <>
            <p>{T.off}</p>
            <Notice error={error} />
            <button
              type="button"
              className="btn btn-primary"
              disabled={start.isPending}
              onClick={() => start.mutate(undefined, { onSuccess: setSetup, onError: (err) => setError(failureText(err, T.failed)) })}
            >
              {start.isPending ? T.starting : T.setUp}
            </button>
          </>
        )}
      </section>
      <PasskeysSection />
      <SessionsSection />
    </div>
  );
}
