import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { SESSION_KEYS, signIn } from '../shell/testing';
import type { TwoFactorChallenge } from '../../api/queries/accounts';
import { AccountDeletionFlow } from './AccountDeletionFlow';

const URL_BASE = 'http://localhost';

beforeEach(() => localStorage.clear());
afterEach(() => {
  jest.useRealTimers();
});

const renderFlow = () => renderWithProviders(<AccountDeletionFlow />, { path: '/account-deletion' });
const heading = (name: string) => screen.getByRole('heading', { level: 2, name });
const sendButton = () => screen.getByRole('button', { name: 'Send verification code' });
const verifyButton = () => screen.getByRole('button', { name: 'Verify' });

async function toOtp(user: ReturnType<typeof userEvent.setup>, email = 'ada@example.com') {
  await user.type(screen.getByLabelText('Email address'), email);
  await user.click(sendButton());
  await screen.findByRole('heading', { level: 2, name: 'Enter the verification code' });
}

async function toConfirm(user: ReturnType<typeof userEvent.setup>, email = 'ada@example.com') {
  await toOtp(user, email);
  await user.type(screen.getByLabelText('Verification code'), '731046');
  await user.click(verifyButton());
  await screen.findByRole('heading', { level: 2, name: 'Confirm account deletion' });
}

describe('AccountDeletionFlow', () => {
  it('walks email → otp → confirm → success with the e-mail and the code', async () => {
    const user = userEvent.setup();
    const calls: Array<[string, unknown]> = [];
    server.use(
      http.post('/api/users/auth/send-deletion-otp', async ({ request, response }) => {
        calls.push(['send', await request.json()]);
        return response(202).json(example('/api/users/auth/send-deletion-otp', 'post', 202));
      }),
      http.post('/api/users/auth/verify-deletion-otp', async ({ request, response }) => {
        calls.push(['verify', await request.json()]);
        return response(200).json(example('/api/users/auth/verify-deletion-otp', 'post', 200));
      }),
      http.delete('/api/users/auth/delete-account', async ({ request, response }) => {
        calls.push(['delete', await request.json()]);
        return response(200).json(example('/api/users/auth/delete-account', 'delete', 200));
      }),
    );
    await renderFlow();
    expect(heading('Enter your e-mail')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { current: 'step' })).toHaveTextContent('E-mail');
    await toConfirm(user, ' ada@example.com ');
    expect(screen.getByRole('listitem', { current: 'step' })).toHaveTextContent('Confirm');
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Your account has been deleted' })).toBeInTheDocument();
    expect(calls).toEqual([
      ['send', { email: 'ada@example.com' }],
      ['verify', { email: 'ada@example.com', otp: '731046' }],
      ['delete', { email: 'ada@example.com', otp: '731046' }],
    ]);
    expect(screen.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute('href', '/');
  });

  it('asks an account with two-factor sign-in for its second factor: a current code, or a recovery code instead', async () => {
    const user = userEvent.setup();
    const deletes: unknown[] = [];
    const challenge: TwoFactorChallenge = {
      two_factor_required: true,
      challenge_token: 'tfc_deletion',
      methods: ['totp', 'recovery_code'],
      expires_in: 300,
    };
    server.use(
      http.post('/api/users/auth/verify-deletion-otp', ({ response }) =>
        response(200).json({ ...example('/api/users/auth/verify-deletion-otp', 'post', 200), two_factor: challenge }),
      ),
      http.delete('/api/users/auth/delete-account', async ({ request, response }) => {
        const body = (await request.json()) as { code?: string };
        deletes.push(body);
        if (body.code === '000000') {
          return HttpResponse.json(
            { statusCode: 401, message: 'Invalid authentication code. Please try again.', error: 'Unauthorized' },
            { status: 401 },
          ) as never;
        }
        return response(200).json(example('/api/users/auth/delete-account', 'delete', 200));
      }),
    );
    await renderFlow();
    await toConfirm(user);
    expect(screen.getByText('This account has two-factor sign-in: confirm its deletion as you sign in.')).toBeInTheDocument();
    const remove = screen.getByRole('button', { name: 'Delete my account' });
    expect(remove).toBeDisabled();
    await user.type(screen.getByLabelText('Authentication code'), '000000');
    await user.click(remove);
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid authentication code. Please try again.');
    // A recovery code instead.
    await user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    await user.type(screen.getByLabelText('Recovery code'), 'abcde-12345');
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Your account has been deleted' })).toBeInTheDocument();
    expect(deletes).toEqual([
      { email: 'ada@example.com', otp: '731046', challenge_token: 'tfc_deletion', code: '000000' },
      { email: 'ada@example.com', otp: '731046', challenge_token: 'tfc_deletion', recovery_code: 'abcde-12345' },
    ]);
  });

  it('offers a passkey where that is the account’s second factor', async () => {
    const user = userEvent.setup();
    server.use(
      http.post('/api/users/auth/verify-deletion-otp', ({ response }) =>
        response(200).json({
          ...example('/api/users/auth/verify-deletion-otp', 'post', 200),
          two_factor: { two_factor_required: true, challenge_token: 'tfc_deletion', methods: ['passkey'], expires_in: 300 },
        }),
      ),
    );
    await renderFlow();
    await toConfirm(user);
    expect(screen.queryByRole('button', { name: 'Delete my account' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use a passkey' })).toBeEnabled();
  });

  it('disables Send while the e-mail is empty and while the request is in flight', async () => {
    const user = userEvent.setup();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.post('/api/users/auth/send-deletion-otp', async ({ response }) => {
        await held;
        return response(202).json(example('/api/users/auth/send-deletion-otp', 'post', 202));
      }),
    );
    await renderFlow();
    expect(sendButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Email address'), '   ');
    expect(sendButton()).toBeDisabled();
    await user.type(screen.getByLabelText('Email address'), 'ada@example.com');
    expect(sendButton()).toBeEnabled();
    await user.click(sendButton());
    await waitFor(() => expect(sendButton()).toBeDisabled());
    release();
    expect(await screen.findByRole('heading', { level: 2, name: 'Enter the verification code' })).toBeInTheDocument();
  });

  it('counts 300 s down as m:ss; at 0 offers Resend verification code, which returns to the email step', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const user = userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) });
    await renderFlow();
    await toOtp(user);
    const countdown = () => document.getElementById('deletion-countdown');
    expect(countdown()).toHaveTextContent('Code expires in 5:00');
    expect(screen.queryByRole('button', { name: 'Resend verification code' })).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(1_000);
    });
    expect(countdown()).toHaveTextContent('Code expires in 4:59');
    await act(async () => {
      jest.advanceTimersByTime(292_000);
    });
    expect(countdown()).toHaveTextContent('Code expires in 0:07');
    expect(screen.queryByRole('button', { name: 'Resend verification code' })).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(7_000);
    });
    expect(countdown()).toHaveTextContent('The code has expired.');
    await user.click(screen.getByRole('button', { name: 'Resend verification code' }));
    expect(heading('Enter your e-mail')).toBeInTheDocument();
    expect(screen.getByLabelText('Email address')).toHaveValue('ada@example.com');
    expect(sendButton()).toBeEnabled();
  });

  it('keeps only digits in the code, at most 6, and enables Verify only at 6', async () => {
    const user = userEvent.setup();
    await renderFlow();
    await toOtp(user);
    const input = screen.getByLabelText('Verification code');
    expect(verifyButton()).toBeDisabled();
    await user.type(input, 'a1-2 b3c4');
    expect(input).toHaveValue('1234');
    expect(verifyButton()).toBeDisabled();
    await user.type(input, '5');
    expect(verifyButton()).toBeDisabled();
    await user.type(input, '6789');
    expect(input).toHaveValue('123456');
    expect(verifyButton()).toBeEnabled();
  });

  it('Back on otp resets everything to the email step', async () => {
    const user = userEvent.setup();
    await renderFlow();
    await toOtp(user);
    await user.type(screen.getByLabelText('Verification code'), '12');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(heading('Enter your e-mail')).toBeInTheDocument();
    expect(screen.getByLabelText('Email address')).toHaveValue('');
    expect(sendButton()).toBeDisabled();
    await toOtp(user, 'grace@example.com');
    expect(screen.getByLabelText('Verification code')).toHaveValue('');
    expect(screen.getByText('grace@example.com')).toBeInTheDocument();
  });

  it('Cancel on confirm returns to the otp step', async () => {
    const user = userEvent.setup();
    let deletes = 0;
    server.use(
      http.delete('/api/users/auth/delete-account', ({ response }) => {
        deletes += 1;
        return response(200).json(example('/api/users/auth/delete-account', 'delete', 200));
      }),
    );
    await renderFlow();
    await toConfirm(user);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(heading('Enter the verification code')).toBeInTheDocument();
    expect(screen.getByLabelText('Verification code')).toHaveValue('731046');
    expect(deletes).toBe(0);
  });

  it.each([
    ['no server message', () => new HttpResponse(null, { status: 500 }), 'Failed to send OTP. Please check your email address.'],
    [
      'the server message (429)',
      () =>
        HttpResponse.json(
          { statusCode: 429, message: 'Too many codes requested. Try again in 42 seconds.', error: 'Too Many Requests' },
          { status: 429 },
        ),
      'Too many codes requested. Try again in 42 seconds.',
    ],
    ['no answer', () => HttpResponse.error(), 'Network error. Please try again.'],
  ])('send: shows %s', async (_case, reply, message) => {
    const user = userEvent.setup();
    server.use(plain.post(`${URL_BASE}/api/users/auth/send-deletion-otp`, reply));
    await renderFlow();
    await user.type(screen.getByLabelText('Email address'), 'ada@example.com');
    await user.click(sendButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(heading('Enter your e-mail')).toBeInTheDocument();
  });

  it('send: refuses an address that is not one without calling the server', async () => {
    const user = userEvent.setup();
    let sends = 0;
    server.use(
      http.post('/api/users/auth/send-deletion-otp', ({ response }) => {
        sends += 1;
        return response(202).json(example('/api/users/auth/send-deletion-otp', 'post', 202));
      }),
    );
    await renderFlow();
    await user.type(screen.getByLabelText('Email address'), 'ada');
    await user.click(sendButton());
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to send OTP. Please check your email address.');
    expect(sends).toBe(0);
    // The field is marked, described by the alert and focused; editing it clears the alert.
    const field = screen.getByLabelText('Email address');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription('Failed to send OTP. Please check your email address.');
    expect(field).toHaveFocus();
    await user.type(field, '@example.com');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(field).not.toHaveAttribute('aria-invalid');
  });

  it.each([
    [
      'the server message',
      () => HttpResponse.json(example('/api/users/auth/verify-deletion-otp', 'post', 400), { status: 400 }),
      'Invalid OTP code. Please try again.',
    ],
    ['no server message', () => new HttpResponse(null, { status: 400 }), 'Invalid OTP code. Please try again.'],
    ['no answer', () => HttpResponse.error(), 'Network error. Please try again.'],
  ])('verify: shows %s and stays on the otp step', async (_case, reply, message) => {
    const user = userEvent.setup();
    server.use(plain.post(`${URL_BASE}/api/users/auth/verify-deletion-otp`, reply));
    await renderFlow();
    await toOtp(user);
    await user.type(screen.getByLabelText('Verification code'), '000000');
    await user.click(verifyButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(heading('Enter the verification code')).toBeInTheDocument();
  });

  it.each([
    ['no server message', () => new HttpResponse(null, { status: 500 }), 'Failed to delete account. Please try again.'],
    [
      'the server message',
      () => HttpResponse.json({ statusCode: 400, message: 'Invalid OTP code. Please try again.', error: 'Bad Request' }, { status: 400 }),
      'Invalid OTP code. Please try again.',
    ],
    ['no answer', () => HttpResponse.error(), 'Network error. Please try again.'],
  ])('delete: shows %s and stays on the confirm step', async (_case, reply, message) => {
    const user = userEvent.setup();
    server.use(plain.delete(`${URL_BASE}/api/users/auth/delete-account`, reply));
    await renderFlow();
    await toConfirm(user);
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(heading('Confirm account deletion')).toBeInTheDocument();
  });

  it('signs this browser out when the deleted account is the one signed in here', async () => {
    const user = userEvent.setup();
    signIn({ email: 'ada@example.com' });
    await renderFlow();
    await toConfirm(user, 'Ada@Example.com');
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await screen.findByRole('heading', { level: 2, name: 'Your account has been deleted' });
    for (const key of SESSION_KEYS) expect(localStorage.getItem(key)).toBeNull();
  });

  it('keeps the session of another account signed in here', async () => {
    const user = userEvent.setup();
    signIn({ email: 'grace@example.com' });
    await renderFlow();
    await toConfirm(user, 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    await screen.findByRole('heading', { level: 2, name: 'Your account has been deleted' });
    expect(localStorage.getItem('access_token')).toBe('access-1');
    expect(JSON.parse(localStorage.getItem('user')!).email).toBe('grace@example.com');
  });
});
