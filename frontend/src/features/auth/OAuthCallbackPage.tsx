import { Link, useLocation, useNavigate, useParams } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { Icon } from '../../components/Icon';
import { useDocumentTitle } from '../session/title';
import { ERROR_REDIRECT_MS, MSG, SUCCESS_REDIRECT_MS } from './messages';
import type { TwoFactorChallenge } from '../../api/queries/accounts';
import { completeOAuth, openInDesktop } from './oauthCallback';
import { rememberedPairCode } from '../nodes/pairCode';
import { PAIR_TEXTS } from '../nodes/texts';
import { TwoFactorStep } from './TwoFactorStep';
import './auth.css';

type Phase =
  | { phase: 'pending' }
  | { phase: 'success'; desktop: boolean }
  | { phase: 'error'; message: string }
  | { phase: 'twoFactor'; challenge: TwoFactorChallenge };

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', github: 'GitHub', microsoft: 'Microsoft' };

/**
 * /app/oauth/callback/{provider}: posts the provider's code and state once,
 * stores the session, then goes to /app/dashboard after 1.5 s — or stays, when the sign-in was for the desktop
 * app (and leads on to the pair page when this tab came from it with a machine's code) — and on failure shows why
 * and returns to /app/auth after 3 s.
 */
export function OAuthCallbackPage() {
  const { provider } = useParams({ strict: false }) as { provider?: string };
  // The raw query: the router's parsed search would turn a numeric code into a number.
  const searchStr = useLocation({ select: (l) => l.searchStr });
  const navigate = useNavigate();
  const [state, setState] = useState<Phase>({ phase: 'pending' });
  useDocumentTitle('Signing In');

  useEffect(() => {
    let active = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void completeOAuth(provider, new URLSearchParams(searchStr)).then((result) => {
      if (!active) return;
      if (result.ok) {
        setState({ phase: 'success', desktop: result.desktop });
        if (!result.desktop) timer = setTimeout(() => void navigate({ to: '/app/dashboard', replace: true }), SUCCESS_REDIRECT_MS);
      } else if ('challenge' in result) {
        setState({ phase: 'twoFactor', challenge: result.challenge });
      } else {
        setState({ phase: 'error', message: result.message });
        timer = setTimeout(() => void navigate({ to: '/app/auth', replace: true }), ERROR_REDIRECT_MS);
      }
    });
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [provider, searchStr, navigate]);

  const name = (provider && PROVIDER_NAMES[provider]) || provider || '';
  // Read when the success shows (the pair page forgets the code once it is reached).
  const pairCode = state.phase === 'success' ? rememberedPairCode() : undefined;
  if (state.phase === 'twoFactor') {
    const desktop = openInDesktop();
    return (
      <div className="auth-page">
        <main id="main" className="auth-main">
          <div className="auth-card card">
            <TwoFactorStep
              challenge={state.challenge}
              onSignedIn={() => (desktop ? setState({ phase: 'success', desktop }) : void navigate({ to: '/app/dashboard', replace: true }))}
              onCancel={() => void navigate({ to: '/app/auth', replace: true })}
            />
          </div>
        </main>
      </div>
    );
  }

  return (
    <div className="auth-page">
      <main id="main" className="auth-main">
        <div className="auth-card card callback-card" aria-live="polite">
          {state.phase === 'pending' && (
            <>
              <span className="spinner" aria-hidden="true" />
              <h1>Authenticating...</h1>
              <p className="callback-message">{name ? `Completing your sign-in with ${name}.` : 'Completing your sign-in.'}</p>
            </>
          )}
          {state.phase === 'success' && (
            <>
              <span className="callback-icon ok" aria-hidden="true">
                <Icon name="check" size={28} />
              </span>
              <h1>Success!</h1>
              <p className="callback-message" role="status">
                {state.desktop ? MSG.desktopDone : 'You are signed in. Taking you to your dashboard...'}
              </p>
              {state.desktop && pairCode ? (
                <p className="callback-message">
                  <Link to="/app/pair" search={{ code: pairCode }} className="btn btn-primary">
                    {PAIR_TEXTS.continuePairing}
                  </Link>
                </p>
              ) : null}
            </>
          )}
          {state.phase === 'error' && (
            <>
              <span className="callback-icon fail" aria-hidden="true">
                <Icon name="close" size={28} />
              </span>
              <h1>Authentication Failed</h1>
              <p className="callback-message" role="alert">
                {state.message}
              </p>
              <p className="callback-message">
                Returning to the sign-in page... <Link to="/app/auth">Back to sign in</Link>
              </p>
            </>
          )}
        </div>
      </main>
    </div>
  );
}
