import { useSyncExternalStore } from 'react';
import { abortSessionRequests, api } from '../../api/client';
import { tokenStore, type StoredUser } from '../../api/tokens';
import { readSession, type Session } from './state';

export type User = StoredUser;

const SIGNED_OUT: Session = { tokens: null, user: null, signedIn: false };

/**
 * The session, re-rendering when it changes here or in another tab. A prerendered page was built signed out,
 * so hydration starts from that and then switches to the stored session.
 */
export function useSession(): Session {
  return useSyncExternalStore(tokenStore.subscribe, readSession, () => SIGNED_OUT);
}

/**
 * Logout drops the session's requests still on their way, clears both tokens and the saved user; the server revokes the
 * refresh token's family.
 */
export async function endSession(): Promise<void> {
  const refresh = tokenStore.get()?.refresh_token;
  abortSessionRequests();
  tokenStore.clear();
  if (refresh) {
    try {
      await api.POST('/api/users/logout', { body: { refresh_token: refresh } });
    } catch {
      // offline: the local session is gone either way, and the refresh token expires on its own
    }
  }
}

/** The id the app keys per-user data by: user_id or id or _id, the fields the product's client reads. */
export function userId(user: Pick<User, 'id'> | null | undefined): string | null {
  if (!user) return null;
  // The contract has only `id`; `user_id` and `_id` are read too because the product's own client reads them.
  const u = user as { id?: string; user_id?: string; _id?: string };
  return u.user_id ?? u.id ?? u._id ?? null;
}

/**
 * The balance in GLOB, read from token_balance or tokens_balance (0 when neither is a number). The contract has
 * only `token_balance`; `tokens_balance` is read too because the product's own client reads both.
 */
export function userBalance(user: Pick<User, 'token_balance'> | null | undefined): number {
  if (!user) return 0;
  const u = user as { token_balance?: unknown; tokens_balance?: unknown };
  const raw = u.token_balance ?? u.tokens_balance;
  const n = typeof raw === 'string' ? Number(raw) : raw;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/** The username, or the part of the e-mail before the at-sign. */
export function displayName(user: Pick<User, 'username' | 'email'> | null | undefined): string {
  if (!user) return '';
  return user.username?.trim() || user.email.split('@')[0] || user.email;
}
