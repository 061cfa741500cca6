import { beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { signIn } from '../shell/testing';
import { SecurityPage } from './SecurityPage';
import { SECURITY_TEXTS as T } from './texts';

const OFF = { totp_enabled: false, enabled_at: null, pending_setup: false, recovery_codes_left: 0 };
const ON = example('/api/users/2fa', 'get', 200);

beforeEach(() => {
  localStorage.clear();
  signIn();
});

/** The status the server answers, changed by the confirm and disable calls as the server would. */
function twoFactorServer(initial: typeof ON) {
  let status = initial;
  const calls: Array<{ op: string; body?: unknown }> = [];
  server.use(
    http.get('/api/users/2fa', ({ response }) => response(200).json(status)),
    http.post('/api/users/2fa/totp/setup', ({ response }) => {
      calls.push({ op: 'setup' });
      return response(200).json(example('/api/users/2fa/totp/setup', 'post', 200));
    }),
    http.post('/api/users/2fa/totp/confirm', async ({ request, response }) => {
      const body = await request.json();
      calls.push({ op: 'confirm', body });
      status = { ...ON, recovery_codes_left: 10 };
      return response(200).json(example('/api/users/2fa/totp/confirm', 'post', 200));
    }),
    http.post('/api/users/2fa/totp/disable', async ({ request, response }) => {
      calls.push({ op: 'disable', body: await request.json() });
      status = OFF;
      return response(200).json(OFF);
    }),
    http.post('/api/users/2fa/recovery-codes', async ({ request, response }) => {
      calls.push({ op: 'codes', body: await request.json() });
      return response(200).json(example('/api/users/2fa/recovery-codes', 'post', 200));
    }),
  );
  return calls;
}

describe('SecurityPage — two-factor sign-in', () => {
  it('sets up an authenticator: QR code and key, the first code turns it on, the recovery codes are shown once', async () => {
    const calls = twoFactorServer(OFF);
    const user = userEvent.setup();
    await renderWithProviders(<SecurityPage />, { path: '/app/security' });
    expect(await screen.findByText(T.off)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: T.setUp }));

    const setup = example('/api/users/2fa/totp/setup', 'post', 200);
    const qr = await screen.findByRole('img', { name: T.qrTitle });
    expect(qr.tagName.toLowerCase()).toBe('svg');
    expect(qr.querySelectorAll('path').length).toBeGreaterThan(0);
    expect(screen.getByTestId('totp-secret').textContent!.replace(/\s/g, '')).toBe(setup.secret);

    await user.click(screen.getByRole('button', { name: T.turnOn }));
    expect(screen.getByText(T.codeRequired)).toBeInTheDocument();
    expect(screen.getByLabelText(T.codeLabel)).toHaveFocus();
    await user.type(screen.getByLabelText(T.codeLabel), '492039');
    await user.click(screen.getByRole('button', { name: T.turnOn }));

    const list = await screen.findByTestId('recovery-codes');
    const codes = example('/api/users/2fa/totp/confirm', 'post', 200).recovery_codes;
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(codes);
    expect(calls).toEqual([{ op: 'setup' }, { op: 'confirm', body: { code: '492039' } }]);
    await user.click(screen.getByRole('button', { name: T.saved }));
    expect(screen.queryByTestId('recovery-codes')).toBeNull();
    expect(await screen.findByText(/Two-factor sign-in is on/)).toHaveTextContent('10 recovery codes left.');
  });

  it('turns off with a current code or a recovery code, and replaces the recovery codes', async () => {
    const calls = twoFactorServer(ON);
    const user = userEvent.setup();
    await renderWithProviders(<SecurityPage />, { path: '/app/security' });
    expect(await screen.findByText(/Two-factor sign-in is on/)).toHaveTextContent('9 recovery codes left.');
    const field = () => screen.getByLabelText(T.proofLabel);

    await user.type(field(), 'nonsense');
    await user.click(screen.getByRole('button', { name: T.turnOff }));
    expect(screen.getByText(T.proofInvalid)).toBeInTheDocument();
    expect(calls).toEqual([]);

    await user.clear(field());
    await user.type(field(), 'K7M2Q-X9P4W');
    await user.click(screen.getByRole('button', { name: T.newCodes }));
    expect(await screen.findByTestId('recovery-codes')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: T.saved }));

    await user.type(field(), '123456');
    await user.click(screen.getByRole('button', { name: T.turnOff }));
    expect(await screen.findByText(T.off)).toBeInTheDocument();
    expect(calls).toEqual([
      { op: 'codes', body: { recovery_code: 'K7M2Q-X9P4W' } },
      { op: 'disable', body: { code: '123456' } },
    ]);
  });

  it('shows the server’s refusal of a wrong code', async () => {
    twoFactorServer(OFF);
    server.use(
      http.post('/api/users/2fa/totp/confirm', ({ response }) =>
        response(400).json({ statusCode: 400, message: 'Invalid authentication code. Please try again.', error: 'Bad Request' }),
      ),
    );
    const user = userEvent.setup();
    await renderWithProviders(<SecurityPage />, { path: '/app/security' });
    await user.click(await screen.findByRole('button', { name: T.setUp }));
    await user.type(await screen.findByLabelText(T.codeLabel), '000000');
    await user.click(screen.getByRole('button', { name: T.turnOn }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid authentication code. Please try again.');
    await waitFor(() => expect(screen.queryByTestId('recovery-codes')).toBeNull());
  });
});
