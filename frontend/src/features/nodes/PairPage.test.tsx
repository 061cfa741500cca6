import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { formatDateTime } from '../../components/format';
import { example } from '../../mocks/examples';
import { resetNodesMock } from '../../mocks/handlers/nodes';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { visitRoute } from '../../test/render';
import { MSG } from '../auth/messages';
import { returnPath } from '../session/returnPath';
import { signIn } from '../shell/testing';
import { PAIR_CODE_KEY } from './pairCode';
import { NODES_TEXTS, PAIR_TEXTS } from './texts';

const DEVICE = example('/api/nodes/device-codes/{userCode}', 'get', 200);
const CODE = DEVICE.user_code;
const NOT_FOUND = example('/api/nodes/device-codes/{userCode}', 'get', 404);
const TOO_MANY = example('/api/nodes/device-codes/{userCode}', 'get', 429);

const fact = (scope: HTMLElement, term: string) => within(scope).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;
const machine = () => screen.getByRole('region', { name: PAIR_TEXTS.machineTitle });

/** The code of every lookup (GET) and confirmation (POST) of a device code, in order. */
function recordCalls() {
  const calls: string[] = [];
  server.events.on('request:start', ({ request }) => {
    const code = /^\/api\/nodes\/device-codes\/([^/]+)$/.exec(new URL(request.url).pathname)?.[1];
    if (code && code !== 'token') calls.push(`${request.method} ${decodeURIComponent(code)}`);
  });
  return calls;
}

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  resetNodesMock();
});
afterEach(() => {
  server.events.removeAllListeners();
  localStorage.clear();
  sessionStorage.clear();
});

describe('/app/pair (signed in)', () => {
  beforeEach(() => {
    signIn();
  });

  it('looks up the code from the address and shows the machine that asks: name, host facts, IP and expiry', async () => {
    const calls = recordCalls();
    server.use(http.get('/api/nodes/device-codes/{userCode}', ({ response }) => response(200).json(DEVICE)));
    await visitRoute(`/app/pair?code=${CODE}`);
    expect(await screen.findByRole('heading', { level: 1, name: NODES_TEXTS.pairTitle })).toBeInTheDocument();
    expect(screen.getByLabelText(PAIR_TEXTS.codeLabel)).toHaveValue(CODE);
    expect(screen.getByLabelText(PAIR_TEXTS.codeLabel)).toHaveAccessibleDescription(PAIR_TEXTS.codeHint);

    const found = await waitFor(machine);
    expect(within(found).getByRole('heading', { level: 2, name: PAIR_TEXTS.machineTitle })).toBeInTheDocument();
    expect(fact(found, 'Code')).toHaveTextContent(CODE);
    expect(fact(found, 'Node name')).toHaveTextContent(DEVICE.name);
    expect(fact(found, 'Hostname')).toHaveTextContent(DEVICE.host.hostname);
    expect(fact(found, 'System')).toHaveTextContent('linux/x64');
    expect(fact(found, 'CPU cores')).toHaveTextContent('8');
    expect(fact(found, 'Memory')).toHaveTextContent('32 GB');
    expect(fact(found, 'GPU')).toHaveTextContent('CPU only');
    expect(fact(found, 'Asked from (IP address)')).toHaveTextContent('203.0.113.7');
    expect(fact(found, 'Asked')).toHaveTextContent(formatDateTime(DEVICE.created_at));
    expect(fact(found, 'Expires')).toHaveTextContent(formatDateTime(DEVICE.expires_at));
    expect(within(found).getByRole('button', { name: 'Confirm pairing' })).toBeEnabled();
    expect(within(found).getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/app/nodes');
    await waitFor(() => expect(document.title).toBe('Pair a new node — Glob Network'));
    // Looked up once (the loader's prefetch and the page share the query).
    expect(calls).toEqual([`GET ${CODE}`]);
  });

  it('confirming sends the approval and says the machine finishes pairing by itself, with a link to Your nodes', async () => {
    const calls = recordCalls();
    server.use(
      http.get('/api/nodes/device-codes/{userCode}', ({ response }) => response(200).json(DEVICE)),
      http.post('/api/nodes/device-codes/{userCode}', ({ response }) => response(200).json(DEVICE)),
    );
    const router = await visitRoute(`/app/pair?code=${CODE}`);
    const found = await waitFor(machine);
    await userEvent.click(within(found).getByRole('button', { name: 'Confirm pairing' }));

    const done = await screen.findByRole('heading', { level: 2, name: PAIR_TEXTS.doneTitle });
    await waitFor(() => expect(done).toHaveFocus());
    expect(screen.getByText(`${DEVICE.name} will finish pairing by itself and then appear on the Your nodes page.`)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Confirm pairing' })).toBeNull();
    expect(calls).toEqual([`GET ${CODE}`, `POST ${CODE}`]);

    await userEvent.click(screen.getByRole('link', { name: PAIR_TEXTS.toNodes }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/nodes'));
    expect(await screen.findByRole('heading', { level: 1, name: NODES_TEXTS.title })).toBeInTheDocument();
  });

  it('says when the code is unknown or has expired (404 on lookup)', async () => {
    server.use(http.get('/api/nodes/device-codes/{userCode}', ({ response }) => response(404).json(NOT_FOUND)));
    await visitRoute('/app/pair?code=ZZZZ-ZZZZ');
    expect(await screen.findByRole('alert')).toHaveTextContent('This code is unknown or has expired. Start pairing again on the machine.');
    expect(screen.queryByRole('button', { name: 'Confirm pairing' })).toBeNull();
  });

  it('says so when the machine was confirmed elsewhere or expired meanwhile (404 on confirmation)', async () => {
    server.use(
      http.get('/api/nodes/device-codes/{userCode}', ({ response }) => response(200).json(DEVICE)),
      http.post('/api/nodes/device-codes/{userCode}', ({ response }) => response(404).json(NOT_FOUND)),
    );
    await visitRoute(`/app/pair?code=${CODE}`);
    await userEvent.click(within(await waitFor(machine)).getByRole('button', { name: 'Confirm pairing' }));
    expect(await within(machine()).findByRole('alert')).toHaveTextContent(PAIR_TEXTS.unknownCode);
  });

  it("shows the API's rate-limit message (429)", async () => {
    server.use(http.get('/api/nodes/device-codes/{userCode}', ({ response }) => response(429).json(TOO_MANY)));
    await visitRoute(`/app/pair?code=${CODE}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(TOO_MANY.message);
  });

  it('takes a typed code (any case), asks for one when the field is empty, and looks it up', async () => {
    const calls = recordCalls();
    const router = await visitRoute('/app/pair');
    const field = await screen.findByLabelText(PAIR_TEXTS.codeLabel);
    expect(field).toHaveValue('');
    expect(screen.queryByRole('region', { name: PAIR_TEXTS.machineTitle })).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: PAIR_TEXTS.lookUp }));
    expect(screen.getByText(PAIR_TEXTS.codeRequired)).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveFocus();
    expect(calls).toEqual([]);

    await userEvent.type(field, ' wdjb-mjht ');
    expect(screen.queryByText(PAIR_TEXTS.codeRequired)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: PAIR_TEXTS.lookUp }));
    await waitFor(() => expect(router.state.location.search).toEqual({ code: CODE }));
    expect(fact(await waitFor(machine), 'Code')).toHaveTextContent(CODE);
    expect(calls).toEqual([`GET ${CODE}`]);
  });

  it('pairs on the mocks end to end: the machine asks, the owner confirms, its next poll gets a join token', async () => {
    const asked = await fetch('http://localhost/api/nodes/device-codes', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'attic-box', host: { ...DEVICE.host, hostname: 'attic', gpu: 'RTX 4090', vram_bytes: 24 * 2 ** 30 } }),
    }).then((r) => r.json() as Promise<{ device_code: string; user_code: string; verification_uri_complete: string }>);
    const poll = () =>
      fetch('http://localhost/api/nodes/device-codes/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ device_code: asked.device_code }),
      });
    expect((await poll()).status).toBe(400);

    const path = new URL(asked.verification_uri_complete).pathname + new URL(asked.verification_uri_complete).search;
    await visitRoute(path);
    const found = await waitFor(machine);
    expect(fact(found, 'Node name')).toHaveTextContent('attic-box');
    expect(fact(found, 'GPU')).toHaveTextContent('RTX 4090 (24 GB)');
    await userEvent.click(within(found).getByRole('button', { name: 'Confirm pairing' }));
    await screen.findByRole('heading', { level: 2, name: PAIR_TEXTS.doneTitle });

    const granted = await poll();
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual(example('/api/nodes/device-codes/token', 'post', 200));
    // Used up: the grant comes once, and the code is unknown from now on.
    expect((await poll()).status).toBe(400);
    const again = await fetch(`http://localhost/api/nodes/device-codes/${asked.user_code}`, { headers: { Authorization: 'Bearer test' } });
    expect(again.status).toBe(404);
  });
});

describe('/app/pair (not signed in)', () => {
  it('sends the visitor to sign in, keeping the code, and back to the machine after signing in', async () => {
    const router = await visitRoute(`/app/pair?code=${CODE}`);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    expect(router.state.location.search).toEqual({ redirect: `/app/pair?code=${CODE}` });
    expect(sessionStorage.getItem(PAIR_CODE_KEY)).toBe(CODE);
    expect(localStorage.getItem('open_in_desktop')).toBe('true');

    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery staple');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/pair'));
    expect(router.state.location.search).toEqual({ code: CODE });
    expect(fact(await waitFor(machine), 'Code')).toHaveTextContent(CODE);
    // Reached: the kept code and the desktop flag it set are done with.
    expect(sessionStorage.getItem(PAIR_CODE_KEY)).toBeNull();
    expect(localStorage.getItem('open_in_desktop')).toBeNull();
  });

  it('follows no return address outside the web app', async () => {
    expect(returnPath('//evil.example/app/pair')).toBeUndefined();
    expect(returnPath('https://evil.example/app/pair')).toBeUndefined();
    expect(returnPath('/app/auth?redirect=/app/pair')).toBeUndefined();
    expect(returnPath(`/app/pair?code=${CODE}`)).toBe(`/app/pair?code=${CODE}`);

    const router = await visitRoute('/app/auth?redirect=%2F%2Fevil.example%2Fapp%2Fpair');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery staple');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/dashboard'));
  });

  it("a social sign-in's success screen shows the desktop message and leads back to the machine", async () => {
    const router = await visitRoute(`/app/pair?code=${CODE}`);
    await waitFor(() => expect(router.state.location.pathname).toBe('/app/auth'));
    router.unmount();

    // Back from the provider, in the same tab.
    sessionStorage.setItem('glob_oauth_nonce', 'bn_pair');
    const back = await visitRoute(`/app/oauth/callback/github?code=pair-${Date.now()}&state=st-pair`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Success!' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(MSG.desktopDone);
    const link = screen.getByRole('link', { name: PAIR_TEXTS.continuePairing });
    expect(link).toHaveAttribute('href', `/app/pair?code=${CODE}`);
    await userEvent.click(link);
    await waitFor(() => expect(back.state.location.pathname).toBe('/app/pair'));
    expect(fact(await waitFor(machine), 'Code')).toHaveTextContent(CODE);
    expect(localStorage.getItem('open_in_desktop')).toBeNull();
  });
});
