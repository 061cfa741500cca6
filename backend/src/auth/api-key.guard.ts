import { type ApiKeyIdentity, ApiKeysRepository } from '../modules/api-keys/api-keys.repository';
import { bearerSecret } from './bearer-secret';

export const API_KEY_PREFIX = 'glb_sk_';
export const API_KEY_AUTH_MESSAGE = 'Incorrect API key provided. Create one under API keys in the web app.';

/** API keys authenticate the /v1 operations and nothing else; a user's access token is not an API key. */
const apiKey = bearerSecret<ApiKeysRepository, ApiKeyIdentity>({
  prefix: API_KEY_PREFIX,
  repository: ApiKeysRepository,
  find: (keys, hash) => keys.byHash(hash),
  message: API_KEY_AUTH_MESSAGE,
});
export const ApiKeyGuard = apiKey.Guard;
/** An operation of the OpenAI-compatible API: the API key guard instead of the users' one. */
export const ApiKeyOperation = apiKey.Operation;
/** The authenticated key of a /v1 operation. */
export const CurrentApiKey = apiKey.Current;
