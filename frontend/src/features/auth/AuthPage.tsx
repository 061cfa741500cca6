import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { useDocumentTitle } from '../session/title';
import type { TwoFactorChallenge } from '../../api/queries/accounts';
import { LoginForm } from './LoginForm';
import { PasskeySignIn } from './PasskeySignIn';
import { MSG } from './messages';
import { RegisterFlow, type RegisterStep } from './RegisterFlow';
import { ResetFlow, type ResetStep } from './ResetFlow';
import { SocialButtons } from './SocialButtons';
import { TwoFactorStep } from './TwoFactorStep';
import './auth.css';
import { useStepFocus } from '../session/useStepFocus';
import { returnPath } from '../session/returnPath';
import { PAIR_PATH, rememberedPairCode } from '../nodes/pairCode';

type Mode = 'login' | 'register' | 'reset';

const HEADINGS = {
  login: 'Sign in to your account',
  form: 'Create your account',
  otp: 'Verify your email',
  email: MSG.resetHeading,
  code: MSG.resetHeading,
  password: MSG.newPasswordHeading,
} as const;

/**
 * /app/auth: a toggle between login and register (form, then code), social sign-in,
 * and /app/dashboard once signed in (a visitor already signed in never gets here: the route's beforeLoad) — or the page
 * that sent the visitor here (`?redirect=`), or the pair page when this tab came with a machine's code.
 */
export function AuthPage() {
  const navigate = useNavigate();
  const back = useSearch({ strict: false, select: (search) => returnPath((search as { redirect?: unknown }).redirect) });
  const [mode, setMode] = useState<Mode>('login');
  const [step, setStep] = useState<RegisterStep>('form');
  const [resetStep, setResetStep] = useState<ResetStep>('email');
  /** A right password (or a reset) for an account with two-factor sign-in on: its second step replaces the forms. */
  const [challenge, setChallenge] = useState<TwoFactorChallenge | null>(null);
  const view = mode === 'login' ? 'login' : mode === 'reset' ? resetStep : step;
  const heading = useStepFocus(mode === 'reset' ? resetStep : step);
  useDocumentTitle(view === 'login' ? 'Sign In' : mode === 'reset' ? 'Reset Password' : 'Create Account');

  const onSignedIn = () => {
    const code = rememberedPairCode();
    if (back) void navigate({ href: back, replace: true });
    else if (code) void navigate({ to: PAIR_PATH, search: { code }, replace: true });
    else void navigate({ to: '/app/dashboard', replace: true });
  };
  const choose = (next: Mode) => {
    setChallenge(null);
    setMode(next);
    setStep('form');
    setResetStep('email');
  };

  return (
    <div className="auth-page">
      <main id="main" className="auth-main">
        <div className="auth-card card">
          <Link to="/" className="auth-brand">
            <img src="/logo.svg" alt="" width={36} height={36} />
            <span>Glob Network</span>
          </Link>
          {challenge ? (
            <TwoFactorStep challenge={challenge} onSignedIn={onSignedIn} onCancel={() => choose('login')} />
          ) : (
            <>
              {mode !== 'reset' && view !== 'otp' && (
                <div className="auth-toggle" role="group" aria-label="Sign in or register">
                  <button type="button" aria-pressed={mode === 'login'} onClick={() => choose('login')}>
                    Login
                  </button>
                  <button type="button" aria-pressed={mode === 'register'} onClick={() => choose('register')}>
                    Register
                  </button>
                </div>
              )}
              <h1 id="auth-title" ref={heading} tabIndex={-1}>
                {HEADINGS[view]}
              </h1>
              {mode === 'login' ? (
                <>
                  <LoginForm onSignedIn={onSignedIn} onChallenge={setChallenge} onForgot={() => choose('reset')} />
                  <PasskeySignIn onSignedIn={onSignedIn} />
                </>
              ) : mode === 'reset' ? (
                <ResetFlow
                  step={resetStep}
                  onStep={setResetStep}
                  onSignedIn={onSignedIn}
                  onChallenge={setChallenge}
                  onCancel={() => choose('login')}
                />
              ) : (
                <RegisterFlow step={step} onStep={setStep} onSignedIn={onSignedIn} />
              )}
              {mode !== 'reset' && view !== 'otp' && <SocialButtons />}
            </>
          )}
        </div>
        <nav className="auth-links" aria-label="Site">
          <Link to="/">Home</Link>
          <Link to="/downloads">Downloads</Link>
          <Link to="/account-deletion">Delete an account</Link>
        </nav>
      </main>
    </div>
  );
}
