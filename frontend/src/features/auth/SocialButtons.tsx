import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, failureText } from '../../api/errors';
import { oauthAuthUrl, oauthProvidersQuery, type OAuthProvider } from '../../api/queries/accounts';
import { browser } from './browser';
import { keepOAuthNonce } from './oauthCallback';
import { Notice } from './Field';
import { MSG } from './messages';

const PROVIDERS: { id: OAuthProvider; label: string }[] = [
  { id: 'google', label: 'Google' },
  { id: 'github', label: 'GitHub' },
  { id: 'microsoft', label: 'Microsoft' },
];

/** The server's words first; then a provider the server does not offer, a refused call, no answer at all. */
export function authUrlError(err: unknown, provider: OAuthProvider): string {
  const refused = err instanceof ApiError && err.status === 404 ? MSG.providerUnavailable(provider) : MSG.authUrlFailed;
  return failureText(err, refused, MSG.oauthFailed);
}

function ProviderMark({ id }: { id: OAuthProvider }) {
  if (id === 'google') {
    return (
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path fill="#4285F4" d="M21.6 12.2c0-.7-.1-1.4-.2-2H12v3.8h5.4a4.6 4.6 0 0 1-2 3v2.5h3.2c1.9-1.7 3-4.3 3-7.3Z" />
        <path fill="#34A853" d="M12 22c2.7 0 5-.9 6.6-2.4l-3.2-2.5c-.9.6-2 1-3.4 1-2.6 0-4.8-1.8-5.6-4.1H3.1v2.6A10 10 0 0 0 12 22Z" />
        <path fill="#FBBC05" d="M6.4 14c-.2-.6-.3-1.3-.3-2s.1-1.4.3-2V7.4H3.1a10 10 0 0 0 0 9.2L6.4 14Z" />
        <path fill="#EA4335" d="M12 6c1.5 0 2.8.5 3.8 1.5l2.9-2.9A10 10 0 0 0 3.1 7.4L6.4 10C7.2 7.7 9.4 6 12 6Z" />
      </svg>
    );
  }
  if (id === 'microsoft') {
    return (
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path fill="#F25022" d="M3 3h8.5v8.5H3z" />
        <path fill="#7FBA00" d="M12.5 3H21v8.5h-8.5z" />
        <path fill="#00A4EF" d="M3 12.5h8.5V21H3z" />
        <path fill="#FFB900" d="M12.5 12.5H21V21h-8.5z" />
      </svg>
    );
  }
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M12 2a10 10 0 0 0-3.2 19.5c.5.1.7-.2.7-.5v-1.7c-2.8.6-3.4-1.3-3.4-1.3-.4-1.2-1.1-1.5-1.1-1.5-.9-.6.1-.6.1-.6 1 .1 1.5 1 1.5 1 .9 1.5 2.4 1.1 2.9.8.1-.6.4-1.1.6-1.3-2.2-.3-4.6-1.1-4.6-5 0-1.1.4-2 1-2.7-.1-.3-.4-1.3.1-2.7 0 0 .8-.3 2.7 1a9.4 9.4 0 0 1 5 0c1.9-1.3 2.7-1 2.7-1 .5 1.4.2 2.4.1 2.7.6.7 1 1.6 1 2.7 0 3.9-2.3 4.7-4.6 5 .4.3.7.9.7 1.9V21c0 .3.2.6.7.5A10 10 0 0 0 12 2Z"
      />
    </svg>
  );
}

/**
 * Google, GitHub and Microsoft sign-in, each only where the server has a client for it (none configured, or the list
 * not loaded: no social section at all, rather than buttons that would be refused). A button asks the server for the provider's authorization
 * URL (GET /api/users/oauth/auth-url/{provider}) and sends the browser there; the provider comes back to
 * /app/oauth/callback/{provider}.
 */
export function SocialButtons() {
  const [pending, setPending] = useState<OAuthProvider | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { data: configured = [] } = useQuery(oauthProvidersQuery());
  const offered = PROVIDERS.filter((p) => configured.includes(p.id));

  const start = async (provider: OAuthProvider) => {
    if (pending) return;
    setPending(provider);
    setError(null);
    let url: string | undefined;
    try {
      const started = await oauthAuthUrl(provider);
      url = started.authorization_url;
      if (url) keepOAuthNonce(started.browser_nonce);
    } catch (err) {
      setError(authUrlError(err, provider));
      setPending(null);
      return;
    }
    if (!url) {
      setError(MSG.authUrlFailed);
      setPending(null);
      return;
    }
    // The page is being replaced; the button stays busy until it is.
    browser.assign(url);
  };

  if (offered.length === 0) return null;
  return (
    <div className="auth-social">
      <p className="auth-divider" id="auth-social-label">
        <span>or continue with</span>
      </p>
      <div className="auth-social-buttons" role="group" aria-labelledby="auth-social-label">
        {offered.map((p) => (
          <button
            key={p.id}
            type="button"
            className="btn btn-block auth-social-button"
            onClick={() => void start(p.id)}
            disabled={pending !== null}
            aria-busy={pending === p.id}
          >
            {pending === p.id ? <span className="spinner small" aria-hidden="true" /> : <ProviderMark id={p.id} />}
            <span>{p.label}</span>
          </button>
        ))}
      </div>
      <Notice error={error} />
    </div>
  );
}
