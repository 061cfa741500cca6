import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type AgentDeps, type Engine } from '../src/agent';
import { browserCommand } from '../src/browser';
import { CredentialStore } from '../src/credential-store';
import { joinTokenByDeviceCode } from '../src/device-pairing';
import type { HostFacts } from '../src/machine';
import { parseOptions } from '../src/options';
import { Session } from '../src/session';

/**
 * Pairing without a token to copy (RFC 8628): the agent against a fake API that answers the device-code operations
 * as scripted, then registers and reports in as the real one does. The real API and agent: backend's
 * test/integration/device-pairing.spec.ts.
 */
const NODE_ID = '7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08';
const HOST: HostFacts = { hostname: 'pc', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 1024 ** 3, gpu: null, vram_bytes: null };
const CODE = {
  device_code: 'glb_dev_secret',
  user_code: 'WDJB-MJHT',
  verification_uri: 'http://web.test/app/pair',
  verification_uri_complete: 'http://web.test/app/pair?code=WDJB-MJHT',
  interval: 5,
  expires_in: 900,
};
const CATALOG = [{ id: 'glob-tiny-chat', name: 'Glob Tiny Chat', file: 'glob-tiny-chat.gguf', context_length: 2048, size_bytes: null, files: [] }];

type Poll = 'authorization_pending' | 'slow_down' | 'expired_token' | 'grant' | 'busy';

const json = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** Answers the polls in `polls`' order (the last one again once they run out). */
function fakeApi(polls: Poll[]) {
  const state = { calls: [] as Array<{ path: string; body: unknown; auth: string | null }>, polls: [...polls] };
  const fetch = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    if (path === '/api/nodes/catalog') return json(200, { models: CATALOG });
    const text = await req.text();
    const body: unknown = text ? JSON.parse(text) : undefined;
    state.calls.push({ path, body, auth: req.headers.get('authorization') });
    if (path === '/api/nodes/device-codes') return json(201, CODE);
    if (path === '/api/nodes/device-codes/token') {
      const next = state.polls.length > 1 ? state.polls.shift()! : state.polls[0]!;
      if (next === 'grant') return json(200, { join_token: 'glb_join_dev', expires_at: '2026-11-25T09:29:05.000Z' });
      if (next === 'busy') return json(429, { statusCode: 429, message: 'Too many requests' }, { 'retry-after': '0' });
      return json(400, { statusCode: 400, message: 'Not yet', error: next });
    }
    if (path === '/api/nodes/register') {
      if ((body as { join_token: string }).join_token !== 'glb_join_dev')
        return json(401, { statusCode: 401, message: 'This join token is invalid' });
      return json(201, {
        node_id: NODE_ID,
        credential: 'glb_node_secret',
        name: (body as { name: string }).name,
        allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 },
      });
    }
    if (req.headers.get('authorization') !== 'Bearer glb_node_secret') return json(401, { statusCode: 401, message: 'revoked' });
    if (path === '/api/nodes/heartbeat') {
      return json(200, {
        node_id: NODE_ID,
        name: 'pc',
        paused: false,
        allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 },
        earned: 0,
        pending: 0,
      });
    }
    if (path === '/api/nodes/jobs/claim') {
      await sleep(20);
      return new Response(null, { status: 204 });
    }
    return json(404, {});
  };
  return { state, fetch, polls: () => state.calls.filter((c) => c.path === '/api/nodes/device-codes/token') };
}

/** An engine that loads anything and benchmarks at a fixed speed; the pairing never generates. */
const fakeEngine = async (): Promise<Engine> => {
  const loaded = new Set<string>();
  return {
    load: async (id: string) => void loaded.add(id),
    capacity: () => ({ sequences: 2, contextSize: 2048, kvBytesPerSequence: 2 ** 26 }),
    unload: async (id: string) => void loaded.delete(id),
    loadedModels: () => [...loaded],
    isLoaded: (id: string) => loaded.has(id),
    benchmark: async () => ({ tokensPerSecond: 321.5 }),
    dispose: async () => undefined,
    generate: async () => {
      throw new Error('no jobs in these tests');
    },
  } as unknown as Engine;
};

async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !fn(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('pairing by device code (no --join-token)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-device-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** The agent with the polls' waits recorded (and not waited) and the browser opener recorded. */
  function start(api: ReturnType<typeof fakeApi>, argv: string[], deps: Partial<AgentDeps> = {}) {
    const lines: string[] = [];
    const waits: number[] = [];
    const opened: string[] = [];
    const agent = new Agent({
      options: parseOptions(['--data-dir', dir, ...argv], {}, 'pc'),
      store: new CredentialStore(dir),
      log: (l) => lines.push(l),
      battery: async () => null,
      createEngine: fakeEngine,
      host: HOST,
      library: { sync: async () => [{ id: 'glob-tiny-chat', path: '/m/glob-tiny-chat.gguf', bytes: 9e6, contextLength: 2048 }] },
      cpuLoad: () => 0.25,
      fetch: (r) => api.fetch(r),
      openBrowser: (url) => void opened.push(url),
      pollWait: async (ms) => void waits.push(ms),
      heartbeatMs: 30,
      claimWaitSeconds: 0,
      ...deps,
    });
    return { agent, lines, waits, opened, exit: agent.run() };
  }

  it('shows the code, opens the page, polls (pending, slow_down: 5 s more), then registers with the granted join token', async () => {
    const api = fakeApi(['authorization_pending', 'slow_down', 'authorization_pending', 'grant']);
    const { agent, lines, waits, opened, exit } = start(api, ['--api', 'http://api.test']);
    await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
    agent.stop();
    expect(await exit).toBe(0);

    // The machine as registration describes it: its name and host facts.
    expect(api.state.calls[0]).toEqual({ path: '/api/nodes/device-codes', body: { name: 'pc', host: HOST }, auth: null });
    expect(api.polls().map((c) => c.body)).toEqual(Array(4).fill({ device_code: 'glb_dev_secret' }));
    expect(waits).toEqual([5000, 5000, 10000, 10000]);
    expect(opened).toEqual(['http://web.test/app/pair?code=WDJB-MJHT']);

    // The same registration as --join-token's, with the granted token, and the same credential stored.
    const register = api.state.calls.find((c) => c.path === '/api/nodes/register')!;
    expect(register).toEqual({
      path: '/api/nodes/register',
      auth: null,
      body: {
        join_token: 'glb_join_dev',
        name: 'pc',
        host: HOST,
        models: ['glob-tiny-chat'],
        benchmark: { model_id: 'glob-tiny-chat', tokens_per_second: 321.5 },
      },
    });
    const store = new CredentialStore(dir);
    expect(await store.read()).toEqual({ api: 'http://api.test', node_id: NODE_ID, credential: 'glb_node_secret', name: 'pc' });
    expect(lines).toEqual(
      expect.arrayContaining([
        'To pair this machine, open http://web.test/app/pair?code=WDJB-MJHT and confirm the code WDJB-MJHT',
        'Waiting for the confirmation (the code is valid 15 min; Ctrl-C stops)…',
        'Confirmed in the web app; pairing…',
        `Paired as pc (node 7c1e…); credential stored in ${store.path}`,
      ]),
    );
    // The code comes once the models are ready, so the join token is used at once.
    expect(lines.indexOf('Serving glob-tiny-chat with 2 threads')).toBeLessThan(lines.findIndex((l) => l.startsWith('To pair')));
  });

  it('--no-browser: the address is printed, no browser is opened', async () => {
    const api = fakeApi(['grant']);
    const { agent, lines, opened, exit } = start(api, ['--api', 'http://api.test', '--no-browser']);
    await until('the pairing', () => lines.some((l) => l.startsWith('Paired as pc')));
    agent.stop();
    expect(await exit).toBe(0);
    expect(opened).toEqual([]);
    expect(lines).toContain('To pair this machine, open http://web.test/app/pair?code=WDJB-MJHT and confirm the code WDJB-MJHT');
  });

  it('an expired code: says so, exits 2 as a refused join token does, registers and stores nothing', async () => {
    const api = fakeApi(['authorization_pending', 'expired_token']);
    const { lines, exit } = start(api, ['--api', 'http://api.test']);
    expect(await exit).toBe(2);
    expect(lines).toContain('The pairing code WDJB-MJHT expired before it was confirmed. Run glob-node again for a new code.');
    expect(api.state.calls.some((c) => c.path === '/api/nodes/register')).toBe(false);
    expect(await new CredentialStore(dir).read()).toBeNull();
  });

  it('Ctrl-C while waiting for the confirmation: stops at once, exit 0, nothing registered', async () => {
    const api = fakeApi(['authorization_pending']);
    const { agent, lines, exit } = start(api, ['--api', 'http://api.test'], {
      pollWait: (ms, signal) => sleep(ms, undefined, { signal }),
    });
    await until('the waiting line', () => lines.some((l) => l.startsWith('Waiting for the confirmation')));
    const stopped = Date.now();
    agent.stop();
    expect(await exit).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(2000);
    expect(lines).toContain('Stopping…');
    expect(api.polls()).toHaveLength(0);
    expect(await new CredentialStore(dir).read()).toBeNull();
  });

  it('--join-token still pairs without a code', async () => {
    const api = fakeApi(['grant']);
    const { agent, lines, opened, exit } = start(api, ['--api', 'http://api.test', '--join-token', 'glb_join_dev']);
    await until('the pairing', () => lines.some((l) => l.startsWith('Paired as pc')));
    agent.stop();
    expect(await exit).toBe(0);
    expect(api.state.calls.some((c) => c.path.startsWith('/api/nodes/device-codes'))).toBe(false);
    expect(opened).toEqual([]);
  });

  it('no API known (no --api, no credential): says how to pair, exit 1', async () => {
    const api = fakeApi(['grant']);
    const { lines, exit } = start(api, []);
    expect(await exit).toBe(1);
    expect(lines).toContain(
      'This machine is not paired yet. Run: npx glob-node --api <url>, then confirm the code it shows in the web app (or add --join-token <token>, created in the web app under "Your nodes").',
    );
    expect(api.state.calls).toEqual([]);
  });
});

describe('the device-code poll', () => {
  function session(api: ReturnType<typeof fakeApi>, lines: string[]) {
    const s = new Session((l) => lines.push(l));
    s.connect('http://api.test', (r) => api.fetch(r));
    return s;
  }

  it('429: waits as Retry-After says and polls on, at the same interval', async () => {
    const api = fakeApi(['busy', 'authorization_pending', 'grant']);
    const lines: string[] = [];
    const waits: number[] = [];
    const token = await joinTokenByDeviceCode({
      session: session(api, lines),
      log: (l) => lines.push(l),
      name: 'pc',
      host: HOST,
      openBrowser: null,
      wait: async (ms) => void waits.push(ms),
    });
    expect(token).toBe('glb_join_dev');
    expect(waits).toEqual([5000, 5000]);
    expect(api.polls()).toHaveLength(3);
    expect(lines).toEqual(expect.arrayContaining(['API busy (429), retrying in 1 s', 'API reachable again']));
  });

  it('no confirmation within expires_in: the expiry error without asking the API again', async () => {
    const api = fakeApi(['authorization_pending']);
    let clock = 0;
    const run = joinTokenByDeviceCode({
      session: session(api, []),
      log: () => undefined,
      name: 'pc',
      host: HOST,
      openBrowser: null,
      now: () => clock,
      wait: async (ms) => void (clock += ms),
    });
    await expect(run).rejects.toMatchObject({
      exitCode: 2,
      message: 'The pairing code WDJB-MJHT expired before it was confirmed. Run glob-node again for a new code.',
    });
    // 900 s at 5 s a poll: the 180th wait reaches the deadline.
    expect(api.polls()).toHaveLength(179);
  });

  it('an opener that throws does not stop the pairing', async () => {
    const api = fakeApi(['grant']);
    const token = await joinTokenByDeviceCode({
      session: session(api, []),
      log: () => undefined,
      name: 'pc',
      host: HOST,
      openBrowser: () => {
        throw new Error('no browser');
      },
      wait: async () => undefined,
    });
    expect(token).toBe('glb_join_dev');
  });
});

describe('opening the browser', () => {
  const url = 'https://globnetwork.io/app/pair?code=WDJB-MJHT';

  it('xdg-open on Linux with a display, open on macOS, cmd /c start on Windows', () => {
    expect(browserCommand(url, 'linux', { DISPLAY: ':0' })).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserCommand(url, 'linux', { WAYLAND_DISPLAY: 'wayland-0' })).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserCommand(url, 'darwin', {})).toEqual({ command: 'open', args: [url] });
    expect(browserCommand(url, 'win32', {})).toEqual({ command: 'cmd', args: ['/d', '/s', '/c', `start "" "${url}"`], verbatim: true });
  });

  it('nothing on Linux without a display (a server, a container), nor for an address that is not http(s)', () => {
    expect(browserCommand(url, 'linux', {})).toBeNull();
    expect(browserCommand('file:///etc/passwd', 'darwin', {})).toBeNull();
    expect(browserCommand('not a url', 'darwin', {})).toBeNull();
    // Quotes cannot break out of the Windows command: the address is normalised first.
    expect(browserCommand('https://x.test/a"b & c', 'win32', {})!.args[3]).toBe('start "" "https://x.test/a%22b%20&%20c"');
  });
});
