import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentSnapshot } from '../src/agent';
import type { NodeApi } from '../src/api-client';
import { DesktopApp, type DesktopAgent, type DesktopDeps, type DesktopUpdater } from '../src/desktop/app';
import type { UpdateSnapshot } from '../src/desktop/updater';
import { RESTART_FOR_UPDATE } from '../src/launcher/bundle';
import { PANEL_SECRET_HEADER, type PanelState } from '../src/desktop/panel-api';
import { SettingsStore } from '../src/desktop/settings';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(10);
  }
}

/** An agent that waits for an API when it has none, then runs until stopped; its platform calls are recorded. */
class FakeAgent implements DesktopAgent {
  snap: AgentSnapshot;
  local = new Map<string, string>();
  patches: unknown[] = [];
  private stopped!: () => void;
  private readonly stopping = new AbortController();

  constructor(
    private readonly hooks: { waitForApi: (signal: AbortSignal) => Promise<string> },
    paired: boolean,
  ) {
    this.snap = {
      stage: 'starting',
      reachable: true,
      api: paired ? 'https://globnetwork.io' : null,
      node: paired ? { id: '7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08', name: 'pc' } : null,
      device: null,
      pauses: { owner: false, battery: false, updateRequired: null, local: [] },
      runningJobs: 0,
      models: [{ id: 'glob-tiny-chat', state: 'ready', bytes: 10, total_bytes: 10, serving: true }],
      allocation: null,
      host: { hostname: 'pc', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8e9, gpu: null, vram_bytes: null },
    };
  }

  async run(): Promise<number> {
    const done = new Promise<void>((r) => (this.stopped = r));
    if (!this.snap.api) {
      this.snap.stage = 'unpaired';
      try {
        this.snap.api = await this.hooks.waitForApi(this.stopping.signal);
      } catch {
        return 0;
      }
      this.snap.device = { user_code: 'WDJB-MJHT', verification_uri_complete: 'https://globnetwork.io/app/pair?code=WDJB-MJHT', expires_at: '' };
    }
    this.snap.stage = 'running';
    await done;
    return 0;
  }
  stop(): void {
    this.snap.stage = 'stopping';
    this.stopping.abort();
    this.stopped?.();
  }
  snapshot(): AgentSnapshot {
    return { ...this.snap, pauses: { ...this.snap.pauses, local: [...this.local.values()] } };
  }
  setLocalPause(key: string, reason: string | null): void {
    if (reason === null) this.local.delete(key);
    else this.local.set(key, reason);
  }
  refresh(): void {}
  async callPlatform<T extends { response: Response }>(fn: (api: NodeApi, signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const api = {
      PATCH: async (_path: string, o: { body: unknown }) => {
        this.patches.push(o.body);
        return { data: {}, response: new Response(null, { status: 200 }) };
      },
    } as unknown as NodeApi;
    return fn(api, new AbortController().signal);
  }
}

function call(port: number, secret: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: PanelState }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, [PANEL_SECRET_HEADER]: secret };
    if (method === 'POST') headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? (JSON.parse(text) as PanelState) : (undefined as never) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('the desktop app', () => {
  let dir: string;
  let idleFile: string;
  let opened: string[];
  let agents: FakeAgent[];
  let autostart: string[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-desktop-'));
    idleFile = join(dir, 'idle');
    opened = [];
    agents = [];
    autostart = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function app(paired: boolean, over: Partial<DesktopDeps> = {}): DesktopApp {
    return new DesktopApp({
      log: (l) => process.env.DEBUG_DESKTOP && console.log(l),
      dataDir: dir,
      api: undefined,
      createAgent: (hooks) => {
        const a = new FakeAgent(hooks, paired);
        agents.push(a);
        return a;
      },
      settings: new SettingsStore(dir),
      idle: async () => {
        const t = await readFile(idleFile, 'utf8').catch(() => null);
        return t === null ? null : Number(t);
      },
      openPanel: (url) => opened.push(url),
      noBrowser: false,
      tray: false,
      autostart: {
        enable: async () => (autostart.push('on'), true),
        disable: async () => void autostart.push('off'),
      },
      panelDir: join(dir, 'panel'),
      idlePollMs: 20,
      version: '0.1.0',
      ...over,
    });
  }

  const secretOf = (url: string) => ({ port: Number(new URL(url).port), secret: new URLSearchParams(new URL(url).hash.slice(1)).get('secret')! });

  it('unpaired: serves the panel, pairs with the API the panel gives, and quits on POST /local/quit', async () => {
    const a = app(false);
    const done = a.run();
    await until('the panel opens', () => opened.length === 1);
    // First run: the start at login is on, and the settings are written.
    expect(autostart).toEqual(['on']);
    expect(JSON.parse(await readFile(join(dir, 'desktop.json'), 'utf8'))).toMatchObject({ sharing: true, start_at_login: true });
    const { port, secret } = secretOf(opened[0]!);
    expect((await call(port, secret, 'GET', '/local/state')).json).toMatchObject({ phase: 'unpaired', api: null });
    expect((await call(port, secret, 'POST', '/local/pair', {})).status).toBe(400);
    const paired = await call(port, secret, 'POST', '/local/pair', { api: 'https://globnetwork.io/' });
    expect(paired.status).toBe(200);
    await until('pairing', () => agents[0]!.snapshot().device !== null);
    expect((await call(port, secret, 'GET', '/local/state')).json).toMatchObject({
      phase: 'pairing',
      api: 'https://globnetwork.io',
      device: { user_code: 'WDJB-MJHT' },
      wallet_url: 'https://globnetwork.io/app/wallet',
    });
    expect((await call(port, secret, 'POST', '/local/quit')).status).toBe(202);
    expect(await done).toBe(0);
    await expect(readFile(join(dir, 'desktop.lock'))).rejects.toThrow();
  });

  it('the sharing switch pauses claiming here and on the platform; idle-only pauses, here and there, while the computer is in use', async () => {
    const a = app(true);
    const done = a.run();
    await until('the panel opens', () => opened.length === 1);
    const { port, secret } = secretOf(opened[0]!);
    const agent = agents[0]!;
    await until('running', () => agent.snapshot().stage === 'running');
    expect((await call(port, secret, 'GET', '/local/state')).json.phase).toBe('sharing');

    const off = await call(port, secret, 'POST', '/local/sharing', { sharing: false });
    expect(off.json).toMatchObject({ phase: 'paused', sharing: false, paused_reason: expect.stringContaining('Sharing is off') });
    expect(agent.local.has('sharing')).toBe(true);
    expect(agent.patches).toEqual([{ paused: true }]);
    await call(port, secret, 'POST', '/local/sharing', { sharing: true });
    expect(agent.patches).toEqual([{ paused: true }, { paused: false }]);
    expect(agent.local.has('sharing')).toBe(false);

    // No idle time known: idle-only cannot be switched on.
    expect((await call(port, secret, 'POST', '/local/idle-only', { enabled: true, minutes: 2 })).status).toBe(409);
    await writeFile(idleFile, '30');
    const idle = await call(port, secret, 'POST', '/local/idle-only', { enabled: true, minutes: 2 });
    expect(idle.json).toMatchObject({
      phase: 'paused',
      paused_reason: 'This computer is in use: sharing resumes after 2 idle minutes',
      idle_only: { enabled: true, minutes: 2, idle_seconds: 30 },
    });
    // The platform stops offering this computer's models (and queueing replies for it) while it is in use.
    expect(agent.patches).toEqual([{ paused: true }, { paused: false }, { paused: true }]);
    await writeFile(idleFile, '121');
    await until('idle resumes', () => !agent.local.has('idle'));
    await until('the platform hears of it', () => agent.patches.length === 4);
    expect(agent.patches.at(-1)).toEqual({ paused: false });
    expect((await call(port, secret, 'GET', '/local/state')).json.phase).toBe('sharing');
    expect(JSON.parse(await readFile(join(dir, 'desktop.json'), 'utf8'))).toMatchObject({ idle_only: { enabled: true, minutes: 2 } });

    await call(port, secret, 'POST', '/local/start-at-login', { enabled: false });
    expect(autostart).toEqual(['on', 'off']);

    // A second launch defers to this one: it opens this panel and exits.
    const second = app(true);
    expect(await second.run()).toBe(0);
    expect(opened[1]).toBe(opened[0]);

    a.quit();
    expect(await done).toBe(0);
  });

  /** An updater whose next check finds `next` (null: nothing newer). */
  class FakeUpdater implements DesktopUpdater {
    checks = 0;
    snap: UpdateSnapshot = { phase: 'idle', current: '0.1.0', version: null, progress: null, message: null };
    constructor(private readonly next: string | null) {}
    get ready() {
      return this.snap.phase === 'ready';
    }
    snapshot() {
      return { ...this.snap };
    }
    async check() {
      this.checks++;
      if (this.next) this.snap = { ...this.snap, phase: 'ready', version: this.next, message: `Version ${this.next} starts at the next restart` };
      return this.snapshot();
    }
  }

  it('an installed app: tells its launcher it started, looks for an update at start, and "Restart to update" exits for the launcher', async () => {
    const updater = new FakeUpdater(null);
    const startedFile = join(dir, 'started');
    const a = app(true, { updater, startedFile });
    const done = a.run();
    await until('the panel opens', () => opened.length === 1);
    const { port, secret } = secretOf(opened[0]!);
    await until('the launcher hears it started', () => existsSync(startedFile));
    await until('the first check', () => updater.checks === 1);
    expect((await call(port, secret, 'GET', '/local/state')).json.update).toEqual({
      current: '0.1.0',
      ready: false,
      available: true,
      phase: 'idle',
      version: null,
      progress: null,
      message: null,
    });
    // Nothing to install yet.
    expect((await call(port, secret, 'POST', '/local/update/restart')).status).toBe(409);

    (updater as unknown as { next: string }).next = '0.2.0';
    const checked = await call(port, secret, 'POST', '/local/update/check');
    expect(checked.json.update).toMatchObject({ ready: true, phase: 'ready', version: '0.2.0', message: 'Version 0.2.0 starts at the next restart' });
    expect((await call(port, secret, 'POST', '/local/update/restart')).status).toBe(202);
    expect(await done).toBe(RESTART_FOR_UPDATE);
    expect(agents[0]!.snapshot().stage).toBe('stopping');
  });

  it('the platform refusing this version: the release is fetched at once and applied as soon as it is verified', async () => {
    const updater = new FakeUpdater('0.3.0');
    const a = app(true, { updater });
    const done = a.run();
    await until('running', () => agents[0]?.snapshot().stage === 'running');
    agents[0]!.snap.pauses.updateRequired = 'This node agent (version 0.1.0) is older than the network accepts (0.3.0 or later)';
    expect(await done).toBe(RESTART_FOR_UPDATE);
    expect(updater.checks).toBeGreaterThanOrEqual(1);
  });

  it('a copy run from npm has no updater: its panel says so and its checks are refused', async () => {
    const a = app(true);
    const done = a.run();
    await until('the panel opens', () => opened.length === 1);
    const { port, secret } = secretOf(opened[0]!);
    expect((await call(port, secret, 'GET', '/local/state')).json.update).toMatchObject({ available: false, ready: false });
    expect((await call(port, secret, 'POST', '/local/update/check')).status).toBe(409);
    a.quit();
    expect(await done).toBe(0);
  });
});
