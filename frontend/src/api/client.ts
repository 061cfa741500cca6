import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@glob/contract';
import { ApiError } from './errors';
import { tokenStore } from './tokens';

export { ApiError, errorMessage, wasAborted } from './errors';

const REFRESH_PATH = '/api/users/refresh';

/** Same origin everywhere: Vite proxies /api in development, the API serves the built app in production. */
function baseUrl(): string {
  return typeof window !== 'undefined' && window.location?.origin && window.location.origin !== 'null' ? window.location.origin : '';
}

/** One refresh at a time, shared by every request that met a 401 while it runs. */
let refreshing: Promise<string | null> | null = null;

async function refreshAccessToken(): Promise<string | null> {
  const refreshToken = tokenStore.get()?.refresh_token;
  if (!refreshToken) return null;
  refreshing ??= (async () => {
    try {
      const response = await globalThis.fetch(`${baseUrl()}${REFRESH_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
      if (!response.ok) {
        tokenStore.clear();
        return null;
      }
      const body = (await response.json()) as { access_token: string; refresh_token?: string };
      tokenStore.set({ access_token: body.access_token, refresh_token: body.refresh_token ?? refreshToken });
      return body.access_token;
    } catch {
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** Untouched copies of outgoing requests, so a request can be replayed once after a refresh. */
const pending = new Map<string, Request>();

/** Bearer token on every request; on a 401, one refresh (POST /api/users/refresh) and one retry. */
export const authMiddleware: Middleware = {
  onRequest({ request, id }) {
    const token = tokenStore.get()?.access_token;
    if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
    if (token && !request.url.endsWith(REFRESH_PATH)) pending.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id }) {
    const original = pending.get(id);
    pending.delete(id);
    if (response.status !== 401 || !original) return response;
    const access = await refreshAccessToken();
    if (!access) return response;
    const retry = new Request(original);
    retry.headers.set('Authorization', `Bearer ${access}`);
    return globalThis.fetch(retry);
  },
  onError({ id }) {
    pending.delete(id);
  },
};

/** Aborted when a session ends: its requests still on their way would only be refused (401) once it has. */
let sessionRequests = new AbortController();

/** Drops every request the client has on its way (a session's end); the requests after this go as usual. */
export function abortSessionRequests(): void {
  sessionRequests.abort();
  sessionRequests = new AbortController();
}

/** A request's fetch, aborted by its caller's signal or by the session's end, whichever comes first. */
async function sessionFetch(request: Request): Promise<Response> {
  const session = sessionRequests.signal;
  const either = new AbortController();
  const abort = () => either.abort();
  if (request.signal.aborted) either.abort();
  // The caller's listener stays for as long as the request lives (a streamed body is read after fetch resolves).
  request.signal.addEventListener('abort', abort, { once: true });
  session.addEventListener('abort', abort, { once: true });
  try {
    // Looked up on each call, so test interceptors installed after import still see the requests.
    return await globalThis.fetch(request, { signal: either.signal });
  } finally {
    session.removeEventListener('abort', abort);
  }
}

/** The one API client: openapi-fetch over the generated contract. */
export const api = createClient<paths>({ baseUrl: baseUrl(), fetch: sessionFetch });
api.use(authMiddleware);

/** Resolves with the body of a successful call, or throws an ApiError following the client's error rule. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw new ApiError(error, response);
}
