/** Test helpers shared by the dashboard and wallet tests (not imported by app code). */
import { tokenStore } from '../../api/tokens';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';

export const ME = example('/api/users/me', 'get', 200).user;

/** Signs the example user in (tokens and the stored user), as the guard would leave it. */
export function signIn(user = ME) {
  localStorage.clear();
  tokenStore.setUser(user);
  tokenStore.set({ access_token: 'access-token', refresh_token: 'refresh-token' });
}

/**
 * server.use() for wallet tests: keeps GET /api/wallet/packages ahead of an override of GET /api/wallet/{userId},
 * which would otherwise match '/api/wallet/packages' too (userId = 'packages').
 */
export function useHandlers(...handlers: Parameters<typeof server.use>) {
  server.use(
    http.get('/api/wallet/packages', ({ response }) => response(200).json(example('/api/wallet/packages', 'get', 200))),
    ...handlers,
  );
}
