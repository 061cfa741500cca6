import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders, visitRoute } from '../../test/render';
import type { TwoFactorChallenge } from '../../api/queries/accounts';
import type { SessionResponse } from '../../api/session';
import { signIn } from '../shell/testing';
import { AuthPage } from './AuthPage';
import { browser } from './browser';
import { MSG } from './messages';

const URL_BASE = 'http://localhost';

beforeEach(() => localStorage.clear());
afterEach(() => {
  jest.useRealTimers();
});

const renderAuth = () => renderWithProviders(<AuthPage />, { path: '/app/auth' });

async function fillRegister(user: ReturnType<typeof userEvent.setup>, overrides: Partial<Record<string, string>> = {}) {
  const v = {
    username: 'ada',
    email: 'ada@example.com',
    password: 'correct horse battery staple',
    confirm: undefined as string | undefined,
    ...overrides,
  };
  if (v.username) await user.type(screen.getByLabelText('Username'), v.username);
  if (v.email) await user.type(screen.getByLabelText('Email'), v.email);
  if (v.password) await user.type(screen.getByLabelText('Password'), v.password);
  await user.type(screen.getByLabelText('Confirm Password'), v.confirm ?? v.password ?? '');
  await user.click(screen.getByRole('checkbox', { name: /I accept the Terms of Service/ }));
}

describe('AuthPage — two-factor sign-in', () => {
  const CHALLENGE: TwoFactorChallenge = {
    two_factor_required: true,
    challenge_token: 'tfc_challenge',
    methods: ['totp', 'recovery_code'],
    expires_in: 300,
  };

  function twoFactorServer(answer: (body: Record<string, unknown>) => Response | undefined = () => undefined) {
    const bodies: Array<Record<string, unknown>> = [];
    server.use(
      http.post('/api/users/login', ({ response }) => response(200).json(CHALLENGE)),
      plain.post(`${URL_BASE}/api/users/login/2fa`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        bodies.push(body);
        return answer(body) ?? HttpResponse.json(example('/api/users/login/2fa', 'post', 200));
      }),
    );
    return bodies;
  }

  async function signInWithPassword(user: ReturnType<typeof userEvent.setup>) {
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery staple');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    return screen.findByRole('heading', { level: 1, name: 'Enter your authentication code' });
  }

  it('a right password opens no session: the authenticator code does, through POST login/2fa', async () => {
    const user = userEvent.setup();
    const bodies = twoFactorServer();
    const { router } = await renderAuth();
    expect(await signInWithPassword(user)).toHaveFocus();
    expect(localStorage.getItem('access_token')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sign In' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Authentication code is required')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Authentication code'), '12345');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Code must be 6 digits')).toBeInTheDocument();
    expect(bodies).toHaveLength(0);

    await user.type(screen.getByLabelText('Authentication code'), '6');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(bodies).toEqual([{ challenge_token: 'tfc_challenge', code: '123456' }]);
    expect(localStorage.getItem('access_token')).toBe(example('/api/users/login/2fa', 'post', 200).access_token);
  });

  it("'Use a recovery code' takes a recovery code instead; the server's refusal is shown", async () => {
    const user = userEvent.setup();
    const bodies = twoFactorServer((body) =>
      body.recovery_code === 'aaaaa-bbbbb'
        ? HttpResponse.json({ statusCode: 401, message: 'Invalid or already used recovery code.', error: 'Unauthorized' }, { status: 401 })
        : undefined,
    );
    await renderAuth();
    await signInWithPassword(user);
    await user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Enter a recovery code' })).toHaveFocus();
    await user.type(screen.getByLabelText('Recovery code'), 'not a code');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Recovery codes look like k7m2q-x9p4w')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Recovery code'));
    await user.type(screen.getByLabelText('Recovery code'), 'aaaaa-bbbbb');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid or already used recovery code.');
    expect(localStorage.getItem('access_token')).toBeNull();
    await user.clear(screen.getByLabelText('Recovery code'));
    await user.type(screen.getByLabelText('Recovery code'), 'k7m2q-x9p4w');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(localStorage.getItem('access_token')).not.toBeNull());
    expect(bodies.at(-1)).toEqual({ challenge_token: 'tfc_challenge', recovery_code: 'k7m2q-x9p4w' });
    await user.click(screen.getByRole('button', { name: 'Back to sign in' })).catch(() => undefined);
  });

  it("'Back to sign in' leaves the step for the sign-in form", async () => {
    const user = userEvent.setup();
    twoFactorServer();
    await renderAuth();
    await signInWithPassword(user);
    await user.click(screen.getByRole('button', { name: 'Back to sign in' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeInTheDocument();
    expect(localStorage.getItem('access_token')).toBeNull();
  });
});

describe('AuthPage — login', () => {
  it("shows 'Sign in to your account' with the Sign In button and the three social buttons", async () => {
    await renderAuth();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Login' })).toHaveAttribute('aria-pressed', 'true');
    const social = within(await screen.findByRole('group', { name: 'or continue with' }));
    for (const name of ['Google', 'GitHub', 'Microsoft']) expect(social.getByRole('button', { name })).toBeInTheDocument();
    expect(document.title).toBe('Sign In — Glob Network');
  });

  it('validates e-mail and password, and clears only the edited field’s error', async () => {
    const user = userEvent.setup();
    let calls = 0;
    server.use(
      http.post('/api/users/login', ({ response }) => {
        calls += 1;
        return response(200).json(example('/api/users/login', 'post', 200));
      }),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Email')).toHaveFocus();

    await user.type(screen.getByLabelText('Email'), 'not-an-address');
    expect(screen.queryByText('Email is required')).toBeNull();
    expect(screen.getByText('Password is required')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Password'), 'short');
    expect(screen.queryByText('Password is required')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(calls).toBe(0);
  });

  it('signs in: POST login, tokens and user under both name sets, then /app/dashboard', async () => {
    const user = userEvent.setup();
    let body: unknown;
    server.use(
      http.post('/api/users/login', async ({ request, response }) => {
        body = await request.json();
        return response(200).json(example('/api/users/login', 'post', 200));
      }),
    );
    const { router } = await renderAuth();
    await user.type(screen.getByLabelText('Email'), ' ada@example.com ');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery staple');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(body).toEqual({ email: 'ada@example.com', password: 'correct horse battery staple' });
    // The first example is the session (the other is a two-factor challenge).
    const session = example('/api/users/login', 'post', 200) as SessionResponse;
    for (const key of ['access_token', 'glob_access_token']) expect(localStorage.getItem(key)).toBe(session.access_token);
    for (const key of ['refresh_token', 'glob_refresh_token']) expect(localStorage.getItem(key)).toBe(session.refresh_token);
    for (const key of ['user', 'glob_user']) expect(JSON.parse(localStorage.getItem(key)!)).toEqual(session.user);
  });

  it("shows the server's message (401, 429) and otherwise 'An error occurred. Please try again.'", async () => {
    const user = userEvent.setup();
    server.use(http.post('/api/users/login', ({ response }) => response(401).json(example('/api/users/login', 'post', 401))));
    await renderAuth();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');

    server.use(
      plain.post(`${URL_BASE}/api/users/login`, () =>
        HttpResponse.json({ statusCode: 429, message: 'Too many attempts. Try again in 900 seconds.', error: 'Too Many Requests' }, { status: 429 }),
      ),
    );
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Too many attempts. Try again in 900 seconds.'));

    server.use(plain.post(`${URL_BASE}/api/users/login`, () => new HttpResponse(null, { status: 500 })));
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('An error occurred. Please try again.'));

    server.use(plain.post(`${URL_BASE}/api/users/login`, () => HttpResponse.error()));
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('An error occurred. Please try again.'));
    expect(localStorage.getItem('access_token')).toBeNull();
  });

  it('sends a signed-in visitor to /app/dashboard (the route’s beforeLoad)', async () => {
    signIn();
    const router = await visitRoute('/app/auth');
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
  });
});

describe('AuthPage — register', () => {
  it("switches to 'Create your account' and checks every field", async () => {
    const user = userEvent.setup();
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Create your account' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms-of-service');
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy-policy');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    for (const text of ['Username is required', 'Email is required', 'Password is required', 'You must accept the terms']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    expect(screen.getByLabelText('Username')).toHaveFocus();

    await user.type(screen.getByLabelText('Username'), 'ada');
    expect(screen.queryByText('Username is required')).toBeNull();
    expect(screen.getByText('You must accept the terms')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox'));
    expect(screen.queryByText('You must accept the terms')).toBeNull();

    await user.type(screen.getByLabelText('Email'), 'ada@example');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.type(screen.getByLabelText('Confirm Password'), 'correct hose');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Confirm Password'), 'x');
    expect(screen.queryByText('Passwords do not match')).toBeNull();
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
  });

  it('says where the code is when the server writes its e-mails to its log (no mail server: make dev)', async () => {
    const user = userEvent.setup();
    server.use(
      http.post('/api/users/send-otp', ({ response }) =>
        response(202).json({ ...example('/api/users/send-otp', 'post', 202), delivery: 'server_log' }),
      ),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify your email' })).toBeInTheDocument();
    expect(screen.getByText(MSG.codeInServerLog)).toBeInTheDocument();
  });

  it('registers by code: send-otp, 60 s resend countdown, resend info, verify-otp, register-with-otp, dashboard', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const user = userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) });
    const sent: unknown[] = [];
    let verified: unknown;
    let registered: unknown;
    server.use(
      http.post('/api/users/send-otp', async ({ request, response }) => {
        sent.push(await request.json());
        return response(202).json(example('/api/users/send-otp', 'post', 202));
      }),
      http.post('/api/users/verify-otp', async ({ request, response }) => {
        verified = await request.json();
        return response(200).json(example('/api/users/verify-otp', 'post', 200));
      }),
      http.post('/api/users/register-with-otp', async ({ request, response }) => {
        registered = await request.json();
        return response(201).json(example('/api/users/register-with-otp', 'post', 201));
      }),
    );
    const { router } = await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user);
    await user.click(screen.getByRole('button', { name: 'Continue' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Verify your email' })).toBeInTheDocument();
    expect(sent).toEqual([{ email: 'ada@example.com', purpose: 'signup' }]);
    expect(screen.getByRole('button', { name: 'Verify Code' })).toBeInTheDocument();
    // Codes go by e-mail: no word of a server log.
    expect(screen.queryByText(MSG.codeInServerLog)).not.toBeInTheDocument();
    const resend = () => screen.getByRole('button', { name: /^Resend code/ });
    expect(resend()).toHaveTextContent('Resend code in 60s');
    expect(resend()).toBeDisabled();
    await act(async () => {
      jest.advanceTimersByTime(59_000);
    });
    expect(resend()).toHaveTextContent('Resend code in 1s');
    expect(resend()).toBeDisabled();
    await act(async () => {
      jest.advanceTimersByTime(1_000);
    });
    expect(resend()).toHaveTextContent(/^Resend code$/);
    expect(resend()).toBeEnabled();
    expect(screen.queryByText('Verification code sent successfully')).toBeNull();

    await user.click(resend());
    expect(await screen.findByRole('status')).toHaveTextContent('Verification code sent successfully');
    expect(sent).toHaveLength(2);
    expect(resend()).toHaveTextContent('Resend code in 60s');

    // The code step's own rules.
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(screen.getByText('Verification code is required')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Verification code'), '48a9');
    expect(screen.queryByText('Verification code is required')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(screen.getByText('Code must be 6 digits')).toBeInTheDocument();
    expect(verified).toBeUndefined();

    await user.clear(screen.getByLabelText('Verification code'));
    await user.type(screen.getByLabelText('Verification code'), '482913');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(verified).toEqual({ email: 'ada@example.com', otp: '482913', purpose: 'signup' });
    expect(registered).toEqual({
      email: 'ada@example.com',
      password: 'correct horse battery staple',
      username: 'ada',
      verification_token: example('/api/users/verify-otp', 'post', 200).verification_token,
    });
    const session = example('/api/users/register-with-otp', 'post', 201);
    expect(localStorage.getItem('access_token')).toBe(session.access_token);
    expect(localStorage.getItem('glob_access_token')).toBe(session.access_token);
  });

  it("'Back to registration' returns to the form (values kept) and clears the code", async () => {
    const user = userEvent.setup();
    let sends = 0;
    server.use(
      http.post('/api/users/send-otp', ({ response }) => {
        sends += 1;
        return response(202).json(example('/api/users/send-otp', 'post', 202));
      }),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.type(await screen.findByLabelText('Verification code'), '123');
    await user.click(screen.getByRole('button', { name: 'Back to registration' }));

    expect(screen.getByRole('heading', { level: 1, name: 'Create your account' })).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveValue('ada');
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByLabelText('Verification code')).toHaveValue('');
    // Within the 60 s wait the code already sent is reused rather than a resend the server would refuse.
    expect(sends).toBe(1);
  });

  it("shows 'Invalid verification code' for a refused code and 'Failed to resend verification code' for a failed resend", async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const user = userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) });
    let registers = 0;
    server.use(
      plain.post(`${URL_BASE}/api/users/verify-otp`, () => new HttpResponse(null, { status: 400 })),
      http.post('/api/users/register-with-otp', ({ response }) => {
        registers += 1;
        return response(201).json(example('/api/users/register-with-otp', 'post', 201));
      }),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.type(await screen.findByLabelText('Verification code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid verification code');
    expect(registers).toBe(0);

    server.use(plain.post(`${URL_BASE}/api/users/send-otp`, () => new HttpResponse(null, { status: 500 })));
    await act(async () => {
      jest.advanceTimersByTime(60_000);
    });
    await user.click(screen.getByRole('button', { name: 'Resend code' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed to resend verification code'));
  });

  it("says 'Email verification required' when verification gives no token, and registers nothing", async () => {
    const user = userEvent.setup();
    let registers = 0;
    server.use(
      plain.post(`${URL_BASE}/api/users/verify-otp`, () => HttpResponse.json({ verified: true, message: 'Email verified successfully' })),
      http.post('/api/users/register-with-otp', ({ response }) => {
        registers += 1;
        return response(201).json(example('/api/users/register-with-otp', 'post', 201));
      }),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.type(await screen.findByLabelText('Verification code'), '482913');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Email verification required');
    expect(registers).toBe(0);
  });

  it('after a refused password (422) the verified e-mail registers with a new password without a new code', async () => {
    const user = userEvent.setup();
    const attempts: Array<Record<string, unknown>> = [];
    let sends = 0;
    let verifies = 0;
    server.use(
      http.post('/api/users/send-otp', ({ response }) => {
        sends += 1;
        return response(202).json(example('/api/users/send-otp', 'post', 202));
      }),
      http.post('/api/users/verify-otp', ({ response }) => {
        verifies += 1;
        return response(200).json(example('/api/users/verify-otp', 'post', 200));
      }),
      http.post('/api/users/register-with-otp', async ({ request, response }) => {
        const body = (await request.json()) as Record<string, unknown>;
        attempts.push(body);
        if (body.password === 'password123') return response(422).json(example('/api/users/register-with-otp', 'post', 422));
        return response(201).json(example('/api/users/register-with-otp', 'post', 201));
      }),
    );
    const { router } = await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Register' }));
    await fillRegister(user, { password: 'password123' });
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.type(await screen.findByLabelText('Verification code'), '482913');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This password is too common. Please choose a different password.');

    await user.click(screen.getByRole('button', { name: 'Back to registration' }));
    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'a much better passphrase');
    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), 'a much better passphrase');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(attempts.map((a) => a.password)).toEqual(['password123', 'a much better passphrase']);
    expect(attempts[1]?.verification_token).toBe(example('/api/users/verify-otp', 'post', 200).verification_token);
    expect([sends, verifies]).toEqual([1, 1]);
  });
});

describe('AuthPage — forgot password', () => {
  it("'Forgot password?': e-mail → send-otp (password_reset) → code → verify-otp → new password → reset-password → signed in", async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    const verified: unknown[] = [];
    let reset: unknown;
    server.use(
      http.post('/api/users/send-otp', async ({ request, response }) => {
        sent.push(await request.json());
        return response(202).json(example('/api/users/send-otp', 'post', 202));
      }),
      http.post('/api/users/verify-otp', async ({ request, response }) => {
        verified.push(await request.json());
        return response(200).json(example('/api/users/verify-otp', 'post', 200));
      }),
      http.post('/api/users/reset-password', async ({ request, response }) => {
        reset = await request.json();
        return response(200).json(example('/api/users/reset-password', 'post', 200));
      }),
    );
    const { router } = await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Forgot password?' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Reset your password' })).toHaveFocus();
    expect(screen.queryByRole('button', { name: 'Google' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    expect(screen.getByText('Email is invalid')).toBeInTheDocument();
    expect(sent).toHaveLength(0);
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), ' ada@example.com ');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));

    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(sent).toEqual([{ email: 'ada@example.com', purpose: 'password_reset' }]);
    expect(screen.getByRole('button', { name: /^Resend code/ })).toHaveTextContent('Resend code in 60s');
    await user.type(screen.getByLabelText('Verification code'), '12345');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(screen.getByText('Code must be 6 digits')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Verification code'), '6');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Choose a new password' })).toBeInTheDocument();
    expect(verified).toEqual([{ email: 'ada@example.com', otp: '123456', purpose: 'password_reset' }]);
    await user.type(screen.getByLabelText('New Password'), 'a brand new passphrase');
    await user.type(screen.getByLabelText('Confirm Password'), 'a different one');
    await user.click(screen.getByRole('button', { name: 'Set New Password' }));
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(reset).toBeUndefined();
    await user.clear(screen.getByLabelText('Confirm Password'));
    await user.type(screen.getByLabelText('Confirm Password'), 'a brand new passphrase');
    await user.click(screen.getByRole('button', { name: 'Set New Password' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
    expect(reset).toEqual({
      email: 'ada@example.com',
      password: 'a brand new passphrase',
      verification_token: example('/api/users/verify-otp', 'post', 200).verification_token,
    });
    expect(localStorage.getItem('access_token')).toBe((example('/api/users/reset-password', 'post', 200) as SessionResponse).access_token);
  });

  it("shows a refused code and a refused reset with the server's words, and 'Back to sign in' returns to the login form", async () => {
    const user = userEvent.setup();
    let codeTries = 0;
    server.use(
      http.post('/api/users/verify-otp', ({ response }) => {
        codeTries += 1;
        return codeTries === 1
          ? response(400).json({ statusCode: 400, message: 'Invalid verification code', error: 'Bad Request' })
          : response(200).json(example('/api/users/verify-otp', 'post', 200));
      }),
      http.post('/api/users/reset-password', ({ response }) => response(400).json(example('/api/users/reset-password', 'post', 400))),
    );
    await renderAuth();
    await user.click(screen.getByRole('button', { name: 'Forgot password?' }));
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    await user.type(await screen.findByLabelText('Verification code'), '111111');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid verification code');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    await user.type(await screen.findByLabelText('New Password'), 'a brand new passphrase');
    await user.type(screen.getByLabelText('Confirm Password'), 'a brand new passphrase');
    await user.click(screen.getByRole('button', { name: 'Set New Password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Email verification required');
    expect(localStorage.getItem('access_token')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Back to sign in' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeInTheDocument();
  });
});

describe('AuthPage — social sign-in', () => {
  it('offers only the providers the server has a client for', async () => {
    server.use(http.get('/api/users/oauth/providers', ({ response }) => response(200).json({ providers: ['google'] })));
    await renderAuth();
    const social = within(await screen.findByRole('group', { name: 'or continue with' }));
    expect(social.getAllByRole('button').map((b) => b.textContent)).toEqual(['Google']);
  });

  it('shows no social section where the server has no provider configured', async () => {
    let asked = 0;
    server.use(
      http.get('/api/users/oauth/providers', ({ response }) => {
        asked += 1;
        return response(200).json({ providers: [] });
      }),
    );
    await renderAuth();
    await waitFor(() => expect(asked).toBe(1));
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    expect(screen.queryByText('or continue with')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument();
  });

  it('fetches the authorization URL and sends the browser there', async () => {
    const user = userEvent.setup();
    const assign = jest.spyOn(browser, 'assign').mockImplementation(() => undefined);
    const asked: string[] = [];
    server.use(
      http.get('/api/users/oauth/auth-url/{provider}', ({ params, response }) => {
        asked.push(params.provider);
        return response(200).json(example('/api/users/oauth/auth-url/{provider}', 'get', 200));
      }),
    );
    await renderAuth();
    await user.click(await screen.findByRole('button', { name: 'GitHub' }));
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    expect(asked).toEqual(['github']);
    expect(assign).toHaveBeenCalledWith(example('/api/users/oauth/auth-url/{provider}', 'get', 200).authorization_url);
    // The nonce that binds the sign-in to this browser stays in this tab for the callback.
    expect(sessionStorage.getItem('glob_oauth_nonce')).toBe(example('/api/users/oauth/auth-url/{provider}', 'get', 200).browser_nonce);
  });

  it.each([
    [
      '404 with the server message',
      () => HttpResponse.json({ statusCode: 404, message: 'OAuth provider microsoft is not available', error: 'Not Found' }, { status: 404 }),
      'OAuth provider microsoft is not available',
    ],
    ['404 without a message', () => new HttpResponse(null, { status: 404 }), 'OAuth provider microsoft is not available'],
    ['500 without a message', () => new HttpResponse(null, { status: 500 }), 'Failed to get authorization URL'],
    ['an answer without a URL', () => HttpResponse.json({ state: 'x' }), 'Failed to get authorization URL'],
    ['no answer at all', () => HttpResponse.error(), 'OAuth login failed'],
  ])('shows the right message for %s', async (_case, reply, message) => {
    const user = userEvent.setup();
    const assign = jest.spyOn(browser, 'assign').mockImplementation(() => undefined);
    server.use(plain.get(`${URL_BASE}/api/users/oauth/auth-url/microsoft`, reply));
    await renderAuth();
    await user.click(await screen.findByRole('button', { name: 'Microsoft' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(assign).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Microsoft' })).toBeEnabled();
  });
});
