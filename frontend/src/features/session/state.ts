import { tokenStore, type StoredTokens, type StoredUser } from '../../api/tokens';

/**
 * The stored session, read without the API client: the routes' `beforeLoad` guards run it from the entry chunk,
 * which the marketing pages load too.
 */
export interface Session {
  tokens: StoredTokens | null;
  user: StoredUser | null;
  /** Signed in when an access token exists. */
  signedIn: boolean;
}

let cached: { key: string; session: Session } | null = null;

/** A stable snapshot of the stored session (same object until something in storage changes). */
export function readSession(): Session {
  const tokens = tokenStore.get();
  const user = tokenStore.getUser();
  const key = JSON.stringify([tokens, user]);
  if (cached?.key !== key) cached = { key, session: { tokens, user, signedIn: Boolean(tokens?.access_token) } };
  return cached.session;
}
