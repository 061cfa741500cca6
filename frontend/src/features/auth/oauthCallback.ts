import { OAUTH_PROVIDERS, isTwoFactorChallenge, oauthCallback, type OAuthProvider, type TwoFactorChallenge } from '../../api/queries/accounts';
import { failureText } from '../../api/errors';
import { startSession } from '../../api/session';
import { openInDesktop } from './desktop';
import { MSG } from './messages';

export { openInDesktop } from './desktop';

/** Signed in, failed, or (two-factor sign-in on) waiting for the second step. */
export type CallbackResult = { ok: true; desktop: boolean } | { ok: false; message: string } | { ok: false; challenge: TwoFactorChallenge };

/**
 * The secret that binds a social sign-in to the browser that started it: kept in this tab's sessionStorage (it
 * survives the round trip through the provider, never leaves this browser except back to our API) and sent
 * with the callback; a code and state replayed in another browser have no match and are refused.
 */
export const OAUTH_NONCE_KEY = 'glob_oauth_nonce';

export function keepOAuthNonce(nonce: string): void {
  try {
    sessionStorage.setItem(OAUTH_NONCE_KEY, nonce);
  } catch {
    // Storage refused (private mode): the callback will be refused with the server's message.
  }
}

/** The kept nonce, used up: a sign-in is completed once. */
function takeOAuthNonce(): string | undefined {
  try {
    const nonce = sessionStorage.getItem(OAUTH_NONCE_KEY) ?? undefined;
    sessionStorage.removeItem(OAUTH_NONCE_KEY);
    return nonce;
  } catch {
    return undefined;
  }
}

/**
 * One run per provider redirect: React StrictMode mounts effects twice
 * and a re-render may run them again, but the provider's code and state are single use — a second POST would
 * fail and overwrite the first answer. Every caller for the same redirect shares the first run's promise.
 */
const runs = new Map<string, Promise<CallbackResult>>();

export function completeOAuth(provider: string | undefined, search: URLSearchParams): Promise<CallbackResult> {
  const key = JSON.stringify([provider ?? '', search.get('code'), search.get('state'), search.get('error')]);
  let run = runs.get(key);
  if (!run) {
    run = execute(provider, search);
    runs.set(key, run);
  }
  return run;
}

const fail = (message: string): CallbackResult => ({ ok: false, message });

async function execute(provider: string | undefined, search: URLSearchParams): Promise<CallbackResult> {
  if (!provider) return fail(MSG.missingProvider);
  const error = search.get('error');
  if (error) return fail(error);
  const code = search.get('code');
  if (!code) return fail(MSG.missingCode);
  if (!OAUTH_PROVIDERS.includes(provider as OAuthProvider)) return fail(MSG.providerUnavailable(provider));
  // The server binds the sign-in to the `state` it issued; a redirect without one cannot be completed.
  const state = search.get('state');
  if (!state) return fail(MSG.oauthFailed);
  let answer: Awaited<ReturnType<typeof oauthCallback>> | undefined;
  try {
    const browserNonce = takeOAuthNonce();
    answer = await oauthCallback(provider as OAuthProvider, { code, state, ...(browserNonce ? { browser_nonce: browserNonce } : {}) });
  } catch (err) {
    return fail(failureText(err, MSG.authenticationFailed));
  }
  if (answer && isTwoFactorChallenge(answer)) return { ok: false, challenge: answer };
  if (!answer?.access_token || !answer.user) return fail(MSG.invalidResponse);
  startSession(answer);
  return { ok: true, desktop: openInDesktop() };
}
