import type { components } from '@glob/contract';
import { tokenStore, type StoredUser } from './tokens';

/** What login, register, register-with-otp and a social sign-in return. */
export type SessionResponse = Pick<components['schemas']['AuthSession'], 'access_token' | 'refresh_token' | 'user'>;

/** Stores the tokens and the user of a new session (then the app goes to /app/dashboard). */
export function startSession(response: SessionResponse): void {
  tokenStore.setUser(response.user);
  tokenStore.set({ access_token: response.access_token, refresh_token: response.refresh_token });
}

/** Keeps the stored user current (GET /api/users/me, a new balance). */
export function updateUser(user: StoredUser): void {
  tokenStore.setUser(user);
}
