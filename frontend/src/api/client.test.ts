import { afterEach, describe, expect, it } from '@jest/globals';
import { HttpResponse, http as plain } from 'msw';
import { server } from '../mocks/node';
import { http } from '../mocks/http';
import { ApiError, abortSessionRequests, api, errorMessage, unwrap } from './client';
import { tokenStore } from './tokens';

afterEach(() => tokenStore.clear());

describe('error messages', () => {
  it("uses the server's message first", () => {
    expect(errorMessage({ message: 'Invalid OTP', error: 'Bad Request' }, { status: 400, statusText: 'Bad Request' })).toBe('Invalid OTP');
  });
  it('falls back to the error field', () => {
    expect(errorMessage({ error: 'Unauthorized' }, { status: 401, statusText: 'Unauthorized' })).toBe('Unauthorized');
  });
  it("else says 'HTTP {status}: {statusText}'", () => {
    expect(errorMessage('<html>oops</html>', { status: 502, statusText: 'Bad Gateway' })).toBe('HTTP 502: Bad Gateway');
    expect(errorMessage(undefined, { status: 500, statusText: 'Internal Server Error' })).toBe('HTTP 500: Internal Server Error');
  });
  it('unwrap throws an ApiError with that message and the status', async () => {
    server.use(
      http.get('/api/stats/platform', ({ response }) =>
        response(400).json({ statusCode: 400, message: 'request/query is bad', error: 'Bad Request' }),
      ),
    );
    const failure = unwrap(api.GET('/api/stats/platform'));
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(unwrap(api.GET('/api/stats/platform'))).rejects.toMatchObject({ message: 'request/query is bad', status: 400 });
  });
});

describe('auth middleware', () => {
  it('sends no Authorization header without a token', async () => {
    let seen: string | null = 'unset';
    server.use(
      http.get('/api/users/me', ({ request, response }) => {
        seen = request.headers.get('Authorization');
        return response(401).json({ statusCode: 401, message: 'Authentication required', error: 'Unauthorized' });
      }),
    );
    await api.GET('/api/users/me');
    expect(seen).toBeNull();
  });

  it('adds the bearer token from the token store', async () => {
    tokenStore.set({ access_token: 'access-1', refresh_token: 'refresh-1' });
    let seen: string | null = null;
    server.use(
      http.get('/api/health', ({ request, response }) => {
        seen = request.headers.get('Authorization');
        return response(200).json({
          status: 'ok',
          checks: { database: { status: 'up', latency_ms: 1 }, redis: { status: 'up', latency_ms: 1 } },
          uptime_seconds: 1,
          version: '0.1.0',
        });
      }),
    );
    await api.GET('/api/health');
    expect(seen).toBe('Bearer access-1');
  });

  it('refreshes once on a 401 and retries the request with the new token', async () => {
    tokenStore.set({ access_token: 'expired', refresh_token: 'refresh-1' });
    const calls: string[] = [];
    let refreshBody: unknown;
    server.use(
      http.post('/api/users/refresh', async ({ request, response }) => {
        refreshBody = await request.json();
        calls.push('refresh');
        return response(200).json({ access_token: 'fresh', refresh_token: 'refresh-2', token_type: 'Bearer', expires_in: 900 });
      }),
      http.post('/api/chat/conversations', async ({ request, response }) => {
        const auth = request.headers.get('Authorization');
        calls.push(`create ${auth} ${JSON.stringify(await request.json())}`);
        if (auth !== 'Bearer fresh') {
          return response(401).json({ statusCode: 401, message: 'Authentication required', error: 'Unauthorized' });
        }
        return response.untyped(HttpResponse.json({ conversation_id: 'c1' }, { status: 201 }));
      }),
    );
    const { response } = await api.POST('/api/chat/conversations', { body: { title: 'Hi', model_id: 'llama-3-8b-instruct' } as never });
    expect(response.status).toBe(201);
    expect(refreshBody).toEqual({ refresh_token: 'refresh-1' });
    expect(calls).toEqual([
      'create Bearer expired {"title":"Hi","model_id":"llama-3-8b-instruct"}',
      'refresh',
      'create Bearer fresh {"title":"Hi","model_id":"llama-3-8b-instruct"}',
    ]);
    expect(tokenStore.get()).toEqual({ access_token: 'fresh', refresh_token: 'refresh-2' });
  });

  it('retries at most once, and clears the session when the refresh is refused', async () => {
    tokenStore.set({ access_token: 'expired', refresh_token: 'revoked' });
    let attempts = 0;
    let refreshes = 0;
    server.use(
      http.post('/api/users/refresh', ({ response }) => {
        refreshes += 1;
        return response(401).json({ statusCode: 401, message: 'Invalid or expired refresh token', error: 'Unauthorized' });
      }),
      http.get('/api/users/me', ({ response }) => {
        attempts += 1;
        return response(401).json({ statusCode: 401, message: 'Authentication required', error: 'Unauthorized' });
      }),
    );
    const { error, response } = await api.GET('/api/users/me');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ message: 'Authentication required' });
    expect(attempts).toBe(1);
    expect(refreshes).toBe(1);
    expect(tokenStore.get()).toBeNull();
  });

  it('does not loop when the retried request is refused again', async () => {
    tokenStore.set({ access_token: 'expired', refresh_token: 'refresh-1' });
    let attempts = 0;
    server.use(
      http.post('/api/users/refresh', ({ response }) =>
        response(200).json({ access_token: 'fresh', refresh_token: 'refresh-2', token_type: 'Bearer', expires_in: 900 }),
      ),
      plain.get('http://localhost/api/users/me', () => {
        attempts += 1;
        return HttpResponse.json({ statusCode: 401, message: 'Authentication required' }, { status: 401 });
      }),
    );
    const { response } = await api.GET('/api/users/me');
    expect(response.status).toBe(401);
    expect(attempts).toBe(2);
  });
});

describe('a session’s end', () => {
  it('drops the requests still on their way, leaves the caller’s own signal working, and lets later requests through', async () => {
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    server.use(
      http.get('/api/stats/platform', async ({ response }) => {
        arrived();
        // Answers long after the session ends: the client must not wait for it.
        await new Promise((r) => setTimeout(r, 5_000));
        return response(200).json({ total_users: 1 } as never);
      }),
    );
    const inFlight = api.GET('/api/stats/platform');
    await reached;
    abortSessionRequests();
    await expect(inFlight).rejects.toMatchObject({ name: 'AbortError' });

    const mine = new AbortController();
    const own = api.GET('/api/stats/platform', { signal: mine.signal });
    mine.abort();
    await expect(own).rejects.toMatchObject({ name: 'AbortError' });

    server.use(http.get('/api/stats/platform', ({ response }) => response(200).json({ total_users: 2 } as never)));
    expect((await api.GET('/api/stats/platform')).response.status).toBe(200);
  });
});
