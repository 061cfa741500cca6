import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders } from '../../test/render';
import { signIn } from '../shell/testing';
import { PasskeysSection } from './PasskeysSection';
import { SECURITY_TEXTS } from './texts';

// The browser's passkey dialog is the third-party edge jsdom lacks (navigator.credentials): it answers a fixed credential.
const REGISTRATION = {
  id: 'cred-1',
  rawId: 'cred-1',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'o2M' },
  clientExtensionResults: {},
};
const startRegistration = jest.fn(async (_: { optionsJSON: unknown }) => REGISTRATION);
jest.mock('@simplewebauthn/browser', () => ({ startRegistration: (o: { optionsJSON: unknown }) => startRegistration(o) }));

const T = SECURITY_TEXTS.passkeys;

beforeEach(() => {
  localStorage.clear();
  signIn();
  startRegistration.mockClear();
});

function passkeyServer() {
  let passkeys = example('/api/users/passkeys', 'get', 200).passkeys;
  const calls: Array<{ op: string; body?: unknown }> = [];
  server.use(
    http.get('/api/users/passkeys', ({ response }) => response(200).json({ passkeys })),
    http.post('/api/users/passkeys/registration-options', ({ response }) => {
      calls.push({ op: 'options' });
      return response(200).json(example('/api/users/passkeys/registration-options', 'post', 200));
    }),
    http.post('/api/users/passkeys', async ({ request, response }) => {
      const body = (await request.json()) as { name?: string };
      calls.push({ op: 'add', body });
      const added = { ...example('/api/users/passkeys', 'post', 201), id: '7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', name: body.name ?? 'Passkey' };
      passkeys = [...passkeys, added];
      return response(201).json(added);
    }),
    http.patch('/api/users/passkeys/{id}', async ({ params, request, response }) => {
      const { name } = (await request.json()) as { name: string };
      calls.push({ op: 'rename', body: { id: params.id, name } });
      passkeys = passkeys.map((p) => (p.id === params.id ? { ...p, name } : p));
      return response(200).json(passkeys.find((p) => p.id === params.id)!);
    }),
    http.delete('/api/users/passkeys/{id}', ({ params, response }) => {
      calls.push({ op: 'remove', body: { id: params.id } });
      passkeys = passkeys.filter((p) => p.id !== params.id);
      return response(204).empty();
    }),
  );
  return calls;
}

describe('PasskeysSection', () => {
  it('adds a passkey through the browser’s dialog with the server’s options, then lists it', async () => {
    const calls = passkeyServer();
    const user = userEvent.setup();
    await renderWithProviders(<PasskeysSection />, { path: '/app/security' });
    expect(await screen.findAllByTestId('passkey-row')).toHaveLength(1);
    await user.type(screen.getByLabelText(T.nameLabel), 'Work laptop');
    await user.click(screen.getByRole('button', { name: T.add }));
    await waitFor(() => expect(screen.getAllByTestId('passkey-row')).toHaveLength(2));
    expect(startRegistration).toHaveBeenCalledWith({ optionsJSON: example('/api/users/passkeys/registration-options', 'post', 200) });
    expect(calls).toEqual([{ op: 'options' }, { op: 'add', body: { name: 'Work laptop', response: REGISTRATION } }]);
    expect(screen.getByText('Work laptop')).toBeInTheDocument();
  });

  it('says so when the dialog is cancelled, and adds nothing', async () => {
    const calls = passkeyServer();
    startRegistration.mockRejectedValueOnce(new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'));
    const user = userEvent.setup();
    await renderWithProviders(<PasskeysSection />, { path: '/app/security' });
    await screen.findAllByTestId('passkey-row');
    await user.click(screen.getByRole('button', { name: T.add }));
    expect(await screen.findByRole('alert')).toHaveTextContent(T.addFailed);
    expect(calls).toEqual([{ op: 'options' }]);
  });

  it('renames and removes a passkey (after a confirmation)', async () => {
    const calls = passkeyServer();
    const user = userEvent.setup();
    await renderWithProviders(<PasskeysSection />, { path: '/app/security' });
    const row = (await screen.findAllByTestId('passkey-row'))[0]!;
    const id = example('/api/users/passkeys', 'get', 200).passkeys[0]!.id;
    await user.click(within(row).getByRole('button', { name: T.rename }));
    const name = screen.getByLabelText(T.renameLabel);
    await user.clear(name);
    await user.type(name, 'Phone');
    await user.click(screen.getByRole('button', { name: T.save }));
    expect(await screen.findByText('Phone')).toBeInTheDocument();
    await user.click(within(screen.getByTestId('passkey-row')).getByRole('button', { name: T.remove }));
    const dialog = screen.getByRole('alertdialog', { name: T.removeTitle });
    await user.click(within(dialog).getByRole('button', { name: T.remove }));
    expect(await screen.findByText(T.empty)).toBeInTheDocument();
    expect(calls).toEqual([
      { op: 'rename', body: { id, name: 'Phone' } },
      { op: 'remove', body: { id } },
    ]);
  });
});
