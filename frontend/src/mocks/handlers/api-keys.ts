import type { components } from '@glob/contract';
import { example } from '../examples';
import { http } from '../http';

type ApiKey = components['schemas']['ApiKey'];

/**
 * The caller's API keys, in memory: the spec's example list at first; creating adds a key (its secret made up here,
 * shown once as the API does), revoking removes it.
 */
let keys: ApiKey[] = [];
let created = 0;

/** Back to the spec's example list (tests call it before each case). */
export function resetApiKeysMock(): void {
  keys = example('/api/api-keys', 'get', 200).api_keys;
}
resetApiKeysMock();

/** Tag `api-keys`: list, create (shown once) and revoke. */
export const apiKeysHandlers = [
  http.get('/api/api-keys', ({ response }) => response(200).json({ api_keys: keys })),
  http.post('/api/api-keys', async ({ request, response }) => {
    const body = (await request.json().catch(() => ({}))) as Partial<components['schemas']['ApiKeyCreate']>;
    const answer = example('/api/api-keys', 'post', 201);
    const secret = `glb_sk_mock${String(++created).padStart(4, '0')}${'x'.repeat(24)}`;
    const key: ApiKey = {
      ...answer.api_key,
      id: `00000000-0000-4000-a000-${String(created).padStart(12, '0')}`,
      name: typeof body.name === 'string' && body.name ? body.name : answer.api_key.name,
      prefix: secret.slice(0, 13),
      daily_limit: typeof body.daily_limit === 'number' ? body.daily_limit : null,
      created_at: new Date().toISOString(),
    };
    keys = [key, ...keys];
    return response(201).json({ key: secret, api_key: key });
  }),
  http.delete('/api/api-keys/{id}', ({ params, response }) => {
    keys = keys.filter((k) => k.id !== params.id);
    return response(204).empty();
  }),
];
