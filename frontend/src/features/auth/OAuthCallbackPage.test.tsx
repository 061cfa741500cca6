import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import type { SessionResponse } from '../../api/session';
import { renderApp } from '../shell/testing';

const URL_BASE = 'http://localhost';
let seq = 0;
/** Codes are single use, and the page runs once per redirect: every test gets its own code. */
const nextCode = () => `code-${++seq}-${Date.now()}`;

beforeEach(() => {
  localStorage.clear();
  jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

const advance = (ms: number) =>
  act(async () => {
    jest.advanceTimersByTime(ms);
  });

describe('OAuthCallbackPage', () => {
  it("sends the browser nonce this tab kept when the sign-in started, once, and shows the server's refusal when it does not match", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    server.use(
      http.post('/api/users/oauth/callback/{provider}', async ({ request, response }) => {
        const body = (await request.json()) as Record<string, unknown>;
        bodies.push(body);
        return body.browser_nonce === 'bn_this_tab'
          ? response(200).json(example('/api/users/oauth/callback/{provider}', 'post', 200))
          : response(400).json({
              statusCode: 400,
              message: 'This sign-in was started in another browser. Please sign in again from this one.',
              error: 'Bad Request',
            });
      }),
    );
    // Another browser: no nonce kept here. The server refuses; the screen says so and returns to /app/auth.
    const other = await renderApp(`/app/oauth/callback/google?code=${encodeURIComponent(nextCode())}&state=st-x`);
    expect(await screen.findByText('This sign-in was started in another browser. Please sign in again from this one.')).toBeInTheDocument();
    expect(bodies[0]).not.toHaveProperty('browser_nonce');
    expect(localStorage.getItem('access_token')).toBeNull();
    await advance(3_000);
    await waitFor(() => expect(other.router.state.location.pathname).toBe('/app/auth'));
    other.unmount();

    sessionStorage.setItem('glob_oauth_nonce', 'bn_this_tab');
    await renderApp(`/app/oauth/callback/google?code=${encodeURIComponent(nextCode())}&state=st-y`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Success!' })).toBeInTheDocument();
    expect(bodies[1]).toMatchObject({ state: 'st-y', browser_nonce: 'bn_this_tab' });
    // Used up: a sign-in completes once.
    expect(sessionStorage.getItem('glob_oauth_nonce')).toBeNull();
  });

  it('a social sign-in to an account with two-factor sign-in on asks for the authenticator code before the session starts', async () => {
    jest.useRealTimers();
    const challenge = { two_factor_required: true, challenge_token: 'tfc_social', methods: ['totp', 'recovery_code'], expires_in: 300 };
    const steps: unknown[] = [];
    server.use(
      http.post('/api/users/oauth/callback/{provider}', ({ response }) => response(200).json(challenge as never)),
      plain.post(`${URL_BASE}/api/users/login/2fa`, async ({ request }) => {
        steps.push(await request.json());
        return HttpResponse.json(example('/api/users/login/2fa', 'post', 200));
      }),
    );
    const { router } = await renderApp(`/app/oauth/callback/google?code=${encodeURIComponent(nextCode())}&state=st-2fa`);
    const code = await screen.findByLabelText('Authentication code');
    expect(screen.getByRole('heading', { level: 1, name: 'Enter your authentication code' })).toBeInTheDocument();
    expect(localStorage.getItem('access_token')).toBeNull();
    const user = userEvent.setup();
    await user.type(code, '654321');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(steps).toEqual([{ challenge_token: 'tfc_social', code: '654321' }]);
    expect(localStorage.getItem('access_token')).toBe(example('/api/users/login/2fa', 'post', 200).access_token);
  });

  it("posts code and state once (even in StrictMode), stores the session, shows 'Success!' and goes to the dashboard after 1.5 s", async () => {
    const bodies: unknown[] = [];
    const providers: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.post('/api/users/oauth/callback/{provider}', async ({ params, request, response }) => {
        providers.push(params.provider);
        bodies.push(await request.json());
        await held;
        return response(200).json(example('/api/users/oauth/callback/{provider}', 'post', 200));
      }),
    );
    const code = nextCode();
    const { router } = await renderApp(`/app/oauth/callback/google?code=${encodeURIComponent(code)}&state=st-1`, { strict: true });
    expect(screen.getByRole('heading', { level: 1, name: 'Authenticating...' })).toBeInTheDocument();
    expect(localStorage.getItem('access_token')).toBeNull();
    release();
    expect(await screen.findByRole('heading', { level: 1, name: 'Success!' })).toBeInTheDocument();
    expect(bodies).toEqual([{ code, state: 'st-1' }]);
    expect(providers).toEqual(['google']);
    const session = example('/api/users/oauth/callback/{provider}', 'post', 200) as SessionResponse;
    expect(localStorage.getItem('access_token')).toBe(session.access_token);
    expect(localStorage.getItem('glob_refresh_token')).toBe(session.refresh_token);
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(session.user);

    await advance(1_400);
    expect(router.state.location.pathname).toBe('/app/oauth/callback/google');
    await advance(100);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(bodies).toHaveLength(1);
  });

  it('keeps a numeric code exactly as the provider sent it', async () => {
    const bodies: Array<{ code: string }> = [];
    server.use(
      http.post('/api/users/oauth/callback/{provider}', async ({ request, response }) => {
        bodies.push((await request.json()) as { code: string });
        return response(200).json(example('/api/users/oauth/callback/{provider}', 'post', 200));
      }),
    );
    const code = `00${Date.now()}`;
    await renderApp(`/app/oauth/callback/github?code=${code}&state=s`);
    await screen.findByRole('heading', { level: 1, name: 'Success!' });
    expect(bodies).toEqual([{ code, state: 's' }]);
  });

  it("stays on the screen with the desktop message when open_in_desktop is 'true'", async () => {
    localStorage.setItem('open_in_desktop', 'true');
    const { router } = await renderApp(`/app/oauth/callback/microsoft?code=${nextCode()}&state=s`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Success!' })).toBeInTheDocument();
    expect(screen.getByText('Authentication successful! You can now login to the desktop app with your email.')).toBeInTheDocument();
    expect(localStorage.getItem('access_token')).toBeTruthy();
    await advance(5_000);
    expect(router.state.location.pathname).toBe('/app/oauth/callback/microsoft');
  });

  it("shows the server's message, then returns to /app/auth after 3 s", async () => {
    server.use(
      http.post('/api/users/oauth/callback/{provider}', ({ response }) =>
        response(400).json(example('/api/users/oauth/callback/{provider}', 'post', 400)),
      ),
    );
    const { router } = await renderApp(`/app/oauth/callback/google?code=${nextCode()}&state=old`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Authentication Failed' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Invalid or expired OAuth state. Please try signing in again.');
    expect(localStorage.getItem('access_token')).toBeNull();
    await advance(2_900);
    expect(router.state.location.pathname).toBe('/app/oauth/callback/google');
    await advance(100);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
  });

  it.each([
    ['a failure without a message', () => new HttpResponse(null, { status: 502 }), 'Authentication failed'],
    ['no answer at all', () => HttpResponse.error(), 'Authentication failed'],
    ['an answer without tokens', () => HttpResponse.json({ is_new_user: false }), 'Invalid response from server'],
    ['an answer without the user', () => HttpResponse.json({ access_token: 'a', refresh_token: 'r' }), 'Invalid response from server'],
  ])('shows the right message for %s', async (_case, reply, message) => {
    server.use(plain.post(`${URL_BASE}/api/users/oauth/callback/github`, reply));
    await renderApp(`/app/oauth/callback/github?code=${nextCode()}&state=s`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Authentication Failed' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(localStorage.getItem('access_token')).toBeNull();
  });

  it.each([
    ['the provider’s error parameter', '/app/oauth/callback/google?error=access_denied&state=s', 'access_denied'],
    ['a missing code', '/app/oauth/callback/google?state=s', 'Missing authorization code'],
    ['an unknown provider', `/app/oauth/callback/facebook?code=${Date.now()}x&state=s`, 'OAuth provider facebook is not available'],
    ['a missing state', `/app/oauth/callback/google?code=${Date.now()}y`, 'OAuth login failed'],
  ])('refuses %s without calling the server, then returns to /app/auth', async (_case, path, message) => {
    let calls = 0;
    server.use(
      plain.post(`${URL_BASE}/api/users/oauth/callback/:provider`, () => {
        calls += 1;
        return HttpResponse.json({});
      }),
    );
    const { router } = await renderApp(path);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('heading', { level: 1, name: 'Authentication Failed' })).toBeInTheDocument();
    await advance(3_000);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(calls).toBe(0);
  });
});
