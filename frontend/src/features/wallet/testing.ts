/** Test helpers shared by the dashboard and wallet tests (not imported by app code). */
import { tokenStore } from '../../api/tokens';
import { example } from '../../mocks/examples';

export const ME = example('/api/users/me', 'get', 200).user;

/** Signs the example user in (tokens and the stored user), as the guard would leave it. */
export function signIn(user = ME) {
  localStorage.clear();
  tokenStore.setUser(user);
  tokenStore.set({ access_token: 'access-token', refresh_token: 'refresh-token' });
}

export const flush = () => new Promise((r) => setTimeout(r, 0));
