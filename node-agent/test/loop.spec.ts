import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type AgentDeps, type Engine } from '../src/agent';
import type { BatteryState } from '../src/battery';
import { CredentialStore } from '../src/credential-store';
import type { NodeJobEvent } from '../src/job-events';
import { parseOptions } from '../src/options';
import { PoolMember } from '../src/pool-member';
import type { GenerateRequest, GenerateResult } from '@glob/engine/llama-engine';

/**
 * The agent's loop against a fake API (a fetch that answers the node operations in memory) and a fake engine:
 * what it sends, in which order, and what it logs. The real API and llama.cpp are in test/integration/node-agent.spec.ts.
 */
const NODE_ID = '7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08';
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(10);
  }
}

interface Job {
  job_id: string;
  model_id: string;
  messages: Array<{ role: 'user'; content: string }>;
  params: { temperature: number; max_tokens: number; top_p: number; seed: number };
  lock_ms: number;
  first_token_ms: number;
  max_bytes: number;
}
const job = (id: string, over: Partial<Job> = {}): Job => ({
  job_id: id,
  model_id: 'glob-tiny-chat',
  messages: [{ role: 'user', content: 'Hello' }],
  params: { temperature: 0.7, max_tokens: 20, top_p: 0.9, seed: 7 },
  lock_ms: 30000,
  first_token_ms: 30000,
  max_bytes: 65536,
  ...over,
});

const CATALOG = [{ id: 'glob-tiny-chat', name: 'Glob Tiny Chat', file: 'glob-tiny-chat.gguf', context_length: 2048, size_bytes: null, files: [] }];

function fakeApi() {
  const state = {
    calls: [] as Array<{ method: string; path: string; auth: string | null; body: unknown; at: number }>,
    jobs: [] as Job[],
    events: new Map<string, NodeJobEvent[]>(),
    returned: [] as string[],
    paused: false,
    allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 },
    earned: 0,
    pending: 0,
    revoked: false,
    down: 0,
    stopJob: null as string | null,
    eventStatus: null as number | null,
    eventMessage: 'Job has already ended',
    eventDelayMs: 0,
    /** The pool assignment heartbeats answer (left out while undefined). */
    pool: undefined as unknown,
  };
  const json = (status: number, body?: unknown) =>
    new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fetch = async (req: Request): Promise<Response> => {
    if (state.down > 0) {
      state.down--;
      throw new TypeError('fetch failed');
    }
    const path = new URL(req.url).pathname;
    // An API from before events were streamed over one request: the agent sends them a request per batch.
    if (path.endsWith('/events/stream')) return json(404, { statusCode: 404, message: 'Not Found' });
    // The public catalog the library is handed (not a node call: it is left out of `calls`).
    if (path === '/api/nodes/catalog') return json(200, { models: CATALOG });
    const text = await req.text();
    const body: unknown = text ? JSON.parse(text) : undefined;
    state.calls.push({ method: req.method, path, auth: req.headers.get('authorization'), body, at: Date.now() });
    if (path === '/api/nodes/register') {
      if ((body as { join_token: string }).join_token !== 'glb_join_ok') return json(401, { statusCode: 401, message: 'This join token is invalid' });
      return json(201, { node_id: NODE_ID, credential: 'glb_node_secret', name: (body as { name: string }).name, allocation: state.allocation });
    }
    if (state.revoked || req.headers.get('authorization') !== 'Bearer glb_node_secret') return json(401, { statusCode: 401, message: 'revoked' });
    if (path === '/api/nodes/heartbeat') {
      return json(200, {
        node_id: NODE_ID,
        name: 'pc',
        paused: state.paused,
        allocation: state.allocation,
        earned: state.earned,
        pending: state.pending,
        ...(state.pool === undefined ? {} : { pool: state.pool }),
      });
    }
    if (path === '/api/nodes/jobs/claim') {
      const next = state.paused ? undefined : state.jobs.shift();
      if (next) return json(200, next);
      await wait(20);
      return new Response(null, { status: 204 });
    }
    const m = /^\/api\/nodes\/jobs\/([^/]+)\/(events|return)$/.exec(path);
    if (m && m[2] === 'events') {
      if (state.eventDelayMs) await wait(state.eventDelayMs);
      if (state.eventStatus) return json(state.eventStatus, { statusCode: state.eventStatus, message: state.eventMessage });
      const list = state.events.get(m[1]!) ?? [];
      list.push(...(body as { events: NodeJobEvent[] }).events);
      state.events.set(m[1]!, list);
      return json(200, { stop: state.stopJob === m[1] });
    }
    if (m && m[2] === 'return') {
      state.returned.push(m[1]!);
      return new Response(null, { status: 204 });
    }
    return json(404, {});
  };
  return { state, fetch };
}

/** The seeds the fake engine was asked to sample with. */
const seeds: number[] = [];

function fakeEngine(created: Array<{ threads: number; gpu?: boolean }>) {
  return async (opts: { threads: number; gpu?: boolean }): Promise<Engine> => {
    created.push(opts);
    const loaded = new Set<string>();
    const sequences = new Map<string, number>();
    const engine = {
      // A memory budget gives one sequence per 64 MB here (at most 16), as the real engine sizes KV caches.
      load: async (id: string, _path: string, opts: { sequences?: number | { memoryBytes: number } }) => {
        loaded.add(id);
        const s = opts.sequences ?? 2;
        sequences.set(id, typeof s === 'number' ? s : Math.max(1, Math.min(16, Math.floor(s.memoryBytes / 2 ** 26))));
      },
      capacity: (id: string) => ({ sequences: sequences.get(id)!, contextSize: 2048, kvBytesPerSequence: 2 ** 26 }),
      unload: async (id: string) => void loaded.delete(id),
      loadedModels: () => [...loaded],
      isLoaded: (id: string) => loaded.has(id),
      benchmark: async () => ({ tokensPerSecond: 321.5 }),
      dispose: async () => undefined,
      generate: async (_id: string, req: GenerateRequest): Promise<GenerateResult> => {
        if (req.sampling.seed !== undefined) seeds.push(req.sampling.seed);
        let n = 0;
        // A model that never ends its answer on its own: max tokens or an abort ends it.
        while (n < req.sampling.max_tokens && !req.signal?.aborted) {
          req.onToken?.(`t${n} `);
          n++;
          await wait(2);
        }
        return {
          text: '',
          stopReason: req.signal?.aborted ? 'abort' : 'length',
          promptTokens: 10,
          completionTokens: n,
          firstTokenMs: 1,
          durationMs: n * 2,
        };
      },
    };
    return engine as unknown as Engine;
  };
}

describe('the node agent loop (fake API, fake engine)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-agent-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  function agent(api: ReturnType<typeof fakeApi>, argv: string[], battery: () => BatteryState | null = () => null, deps: Partial<AgentDeps> = {}) {
    const lines: string[] = [];
    const engines: Array<{ threads: number; gpu?: boolean }> = [];
    const a = new Agent({
      options: parseOptions(['--data-dir', dir, ...argv], {}, 'pc'),
      store: new CredentialStore(dir),
      log: (l) => lines.push(l),
      battery: async () => battery(),
      createEngine: fakeEngine(engines),
      host: { hostname: 'pc', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 1024 ** 3, gpu: null, vram_bytes: null },
      library: {
        sync: async (catalog) =>
          catalog.some((m) => m.id === 'glob-tiny-chat')
            ? [{ id: 'glob-tiny-chat', path: '/m/glob-tiny-chat.gguf', bytes: 9e6, contextLength: 2048 }]
            : [],
      },
      cpuLoad: () => 0.25,
      fetch: (r) => api.fetch(r),
      heartbeatMs: 30,
      claimWaitSeconds: 0,
      ...deps,
    });
    return { agent: a, lines, engines, exit: a.run() };
  }

  it('pairs, stores the credential (0600), reports in, serves a job in order and ends it with done', async () => {
    const api = fakeApi();
    api.state.jobs.push(job('r_1'));
    const { agent: a, lines, engines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('the job', () => api.state.events.get('r_1')?.at(-1)?.type === 'done');
    a.stop();
    expect(await exit).toBe(0);

    const register = api.state.calls.find((c) => c.path === '/api/nodes/register')!;
    expect(register.body).toEqual({
      join_token: 'glb_join_ok',
      name: 'pc',
      host: { hostname: 'pc', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 1024 ** 3, gpu: null, vram_bytes: null },
      models: ['glob-tiny-chat'],
      benchmark: { model_id: 'glob-tiny-chat', tokens_per_second: 321.5 },
    });
    expect(register.auth).toBeNull();
    const store = new CredentialStore(dir);
    expect(await store.read()).toEqual({ api: 'http://api.test', node_id: NODE_ID, credential: 'glb_node_secret', name: 'pc' });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);

    // Threads: 4 cores × 50 % = 2. The first heartbeat comes before the first claim and declares the model.
    expect(engines).toEqual([{ threads: 2, gpu: false }]);
    const nodeCalls = api.state.calls.filter((c) => c.path !== '/api/nodes/register');
    expect(nodeCalls.every((c) => c.auth === 'Bearer glb_node_secret')).toBe(true);
    expect(nodeCalls[0]).toMatchObject({
      path: '/api/nodes/heartbeat',
      body: { models: ['glob-tiny-chat'], running_jobs: 0, cpu_load: 0.25, battery_percent: null },
    });
    expect(nodeCalls[1]!.path).toBe('/api/nodes/jobs/claim');

    const events = api.state.events.get('r_1')!;
    const text = events.flatMap((e) => (e.type === 'token' ? [e.text] : [])).join('');
    expect(text).toBe(Array.from({ length: 20 }, (_, i) => `t${i} `).join(''));
    expect(events.at(-1)).toEqual({ type: 'done', usage: { prompt_tokens: 10, completion_tokens: 20 }, stop_reason: 'length' });
    expect(lines).toEqual(
      expect.arrayContaining([
        'Serving glob-tiny-chat with 2 threads',
        'Benchmark: 321.5 tokens/s on glob-tiny-chat',
        `Paired as pc (node 7c1e…); credential stored in ${store.path}`,
        expect.stringMatching(/^Job r_1: 20 tokens in \d+\.\d s \(length\)$/),
      ]),
    );
  });

  it('later runs need no options: the stored API and credential; --join-token is then ignored', async () => {
    await new CredentialStore(dir).write({ api: 'http://api.test', node_id: NODE_ID, credential: 'glb_node_secret', name: 'pc' });
    const api = fakeApi();
    api.state.earned = 12.5;
    api.state.pending = 37.5;
    const { agent: a, lines, exit } = agent(api, ['--join-token', 'glb_join_used']);
    await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
    a.stop();
    expect(await exit).toBe(0);
    expect(api.state.calls.some((c) => c.path === '/api/nodes/register')).toBe(false);
    // The first heartbeat (no models yet) brings the allocation; the next declares what was loaded.
    expect(api.state.calls[0]!.body).toMatchObject({ models: [] });
    expect(api.state.calls[1]!.body).toMatchObject({ models: ['glob-tiny-chat'] });
    expect(lines).toEqual(
      expect.arrayContaining(['Already paired as pc (node 7c1e…); ignoring --join-token', 'Earned so far: 12.5 GLOB (37.5 pending)']),
    );
  });

  it('a refused join token: exit 2 with the API’s words, nothing stored', async () => {
    const api = fakeApi();
    const { lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_bad']);
    expect(await exit).toBe(2);
    expect(lines).toContain('Pairing failed (401): This join token is invalid');
    expect(await new CredentialStore(dir).read()).toBeNull();
  });

  it('generates at most the max_tokens the platform sent (already cut to the requester’s budget), with its seed, and reports length', async () => {
    const api = fakeApi();
    api.state.jobs.push(job('r_b', { params: { temperature: 0.7, max_tokens: 5, top_p: 0.9, seed: 42 } }));
    const { agent: a, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('the job', () => api.state.events.get('r_b')?.at(-1)?.type === 'done');
    a.stop();
    expect(await exit).toBe(0);
    expect(api.state.events.get('r_b')!.at(-1)).toEqual({ type: 'done', usage: { prompt_tokens: 10, completion_tokens: 5 }, stop_reason: 'length' });
    expect(seeds).toContain(42);
    // Every heartbeat says how many jobs it runs at once.
    const beats = api.state.calls.filter((c) => c.path === '/api/nodes/heartbeat');
    expect(beats.length).toBeGreaterThan(0);
    // As many slots as the memory allocation gives sequences (see the fake engine).
    for (const b of beats) expect(b.body).toMatchObject({ slots: 16 });
  });

  it('{stop: true} from the API aborts the generation: done with stop_reason abort', async () => {
    const api = fakeApi();
    api.state.stopJob = 'r_s';
    api.state.jobs.push(job('r_s', { params: { temperature: 0.7, max_tokens: 100000, top_p: 0.9, seed: 7 } }));
    const { agent: a, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('the stopped job', () => api.state.events.get('r_s')?.at(-1)?.type === 'done', 10_000);
    a.stop();
    expect(await exit).toBe(0);
    expect(api.state.events.get('r_s')!.at(-1)).toMatchObject({ type: 'done', stop_reason: 'abort' });
  });

  it.each([
    [409, 'Job has already ended'],
    // Past its max_bytes (or event) cap the platform ends the job as failed: over for the node, as a 409 is.
    [413, 'Job r_x has ended: it passed its max_bytes cap.'],
  ])('%i on events: the job is dropped, the node carries on with the next one', async (status, message) => {
    const api = fakeApi();
    api.state.eventStatus = status;
    api.state.eventMessage = message;
    api.state.jobs.push(job('r_x', { params: { temperature: 0.7, max_tokens: 100000, top_p: 0.9, seed: 7 } }));
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('the lost job', () => lines.some((l) => l.startsWith('Job r_x is no longer')));
    api.state.eventStatus = null;
    api.state.jobs.push(job('r_y'));
    await until('the next job', () => api.state.events.get('r_y')?.at(-1)?.type === 'done');
    a.stop();
    expect(await exit).toBe(0);
    expect(lines).toContain(`Job r_x is no longer this node's (${status}: ${message}); carrying on`);
    expect(lines.filter((l) => l.startsWith('Job r_x'))).toHaveLength(1);
    expect(api.state.returned).toEqual([]);
  });

  it('--parallel 3: reports 3 slots and runs 3 jobs at once, claiming the next as soon as one ends', async () => {
    const api = fakeApi();
    const long = (id: string) => job(id, { params: { temperature: 0.7, max_tokens: 100000, top_p: 0.9, seed: 7 } });
    api.state.jobs.push(long('p_1'), long('p_2'), long('p_3'), job('p_4'));
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok', '--parallel', '3']);
    const streaming = (id: string) => (api.state.events.get(id)?.length ?? 0) > 0;
    await until('three replies streaming at once', () => ['p_1', 'p_2', 'p_3'].every(streaming));
    const beats = () =>
      api.state.calls.filter((c) => c.path === '/api/nodes/heartbeat').map((c) => c.body as { slots: number; running_jobs: number });
    await until('a heartbeat with three running', () => beats().some((b) => b.running_jobs === 3));
    expect(beats().every((b) => b.slots === 3)).toBe(true);
    // The fourth waits for a free sequence: no claim goes out while three run.
    await wait(100);
    expect(streaming('p_4')).toBe(false);
    api.state.stopJob = 'p_2';
    await until('the fourth job, once the second ended', () => api.state.events.get('p_4')?.at(-1)?.type === 'done');
    expect(lines).toContain('Loaded glob-tiny-chat: 3 replies at once (sequences of 2048 tokens, KV cache 64.0 MB each)');
    a.stop();
    expect(await exit).toBe(0);
    // Ctrl-C gives back every job it still held.
    expect(api.state.returned.sort()).toEqual(['p_1', 'p_3']);
  });

  it('without --parallel, the memory allocation sizes the replies at once', async () => {
    const api = fakeApi();
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    // 40 % of 8 GiB less the 9 MB file, at 64 MB a sequence: more than 16, so the most, 16.
    await until('the load line', () => lines.some((l) => l.startsWith('Loaded glob-tiny-chat')));
    await until('a heartbeat with its slots', () => api.state.calls.some((c) => (c.body as { slots?: number } | undefined)?.slots === 16));
    a.stop();
    expect(await exit).toBe(0);
  });

  it('Ctrl-C mid-job: aborts, returns the job, sends nothing more, exits 0', async () => {
    const api = fakeApi();
    api.state.eventDelayMs = 5;
    api.state.jobs.push(job('r_c', { params: { temperature: 0.7, max_tokens: 100000, top_p: 0.9, seed: 7 } }));
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('tokens', () => (api.state.events.get('r_c')?.length ?? 0) > 3);
    a.stop();
    expect(await exit).toBe(0);
    const sent = api.state.calls.length;
    await wait(100);
    expect(api.state.calls.length).toBe(sent);
    expect(api.state.returned).toEqual(['r_c']);
    expect(api.state.calls.at(-1)!.path).toBe('/api/nodes/jobs/r_c/return');
    expect(api.state.events.get('r_c')!.every((e) => e.type === 'token')).toBe(true);
    expect(lines).toContain('Returned job r_c to the network');
  });

  it('revoked (401 on a heartbeat): says so, exits 2, sets the credential aside', async () => {
    const api = fakeApi();
    const { lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
    api.state.revoked = true;
    expect(await exit).toBe(2);
    expect(lines).toContain('This node was revoked by its owner; pair it again with a new join token.');
    expect(await new CredentialStore(dir).read()).toBeNull();
  });

  it('on battery below 20 %: stops claiming and reports it; resumes when charging', async () => {
    const api = fakeApi();
    let battery: BatteryState | null = { onBattery: true, percent: 15 };
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok'], () => battery);
    await until('two heartbeats', () => api.state.calls.filter((c) => c.path === '/api/nodes/heartbeat').length >= 2);
    expect(api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim')).toBe(false);
    expect(api.state.calls.find((c) => c.path === '/api/nodes/heartbeat')!.body).toMatchObject({ battery_percent: 15 });
    expect(lines).toContain('Paused: on battery at 15 %');
    battery = { onBattery: false, percent: 16 };
    await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
    expect(lines).toContain('Resumed: charging');
    a.stop();
    expect(await exit).toBe(0);
  });

  it('paused by its owner: no claims until resumed; an allocation change reloads with the new threads', async () => {
    const api = fakeApi();
    api.state.paused = true;
    const { agent: a, lines, engines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('two heartbeats', () => api.state.calls.filter((c) => c.path === '/api/nodes/heartbeat').length >= 2);
    await wait(50);
    expect(api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim')).toBe(false);
    api.state.allocation = { cpu_percent: 80, memory_percent: 40, gpu_percent: 60, disk_gb: 50 };
    api.state.paused = false;
    await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
    a.stop();
    expect(await exit).toBe(0);
    expect(engines).toEqual([
      { threads: 2, gpu: false },
      { threads: 3, gpu: false },
    ]);
    expect(lines).toEqual(
      expect.arrayContaining([
        'Paused: this node takes no jobs until it is resumed',
        'Allocation changed: CPU 80 %, memory 40 %, GPU 60 %, disk 50 GB',
        'Serving glob-tiny-chat with 3 threads',
        'Resumed: taking jobs',
      ]),
    );
  });

  it('API away: retries with backoff and says so, carries on when it returns', async () => {
    const api = fakeApi();
    api.state.down = 2;
    api.state.jobs.push(job('r_1'));
    const { agent: a, lines, exit } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok']);
    await until('the job', () => api.state.events.get('r_1')?.at(-1)?.type === 'done', 10_000);
    a.stop();
    expect(await exit).toBe(0);
    expect(lines).toEqual(expect.arrayContaining(['API unreachable, retrying in 1 s', 'API unreachable, retrying in 2 s', 'API reachable again']));
  }, 15_000);

  it('a pool tunnel only while in a pool: none before, opened at the assignment and reported at once, closed when the pool is dissolved, reopened on its port', async () => {
    const api = fakeApi();
    const heartbeatMs = 2_000;
    const {
      agent: a,
      lines,
      exit,
    } = agent(api, ['--api', 'http://api.test', '--join-token', 'glb_join_ok'], undefined, {
      heartbeatMs,
      pool: (onChange, threads, models, nodeId) =>
        new PoolMember({
          log: (l) => lines.push(l),
          listen: { host: '127.0.0.1', port: 0 },
          bin: () => Promise.reject(new Error('no llama.cpp build in this test')),
          threads,
          nodeId,
          models,
          onChange,
        }),
    });
    const beats = () =>
      api.state.calls
        .filter((c) => c.path === '/api/nodes/heartbeat')
        .map((c) => ({ at: c.at, endpoint: (c.body as { pool_endpoint?: string | null }).pool_endpoint }));
    try {
      await until('a claim', () => api.state.calls.some((c) => c.path === '/api/nodes/jobs/claim'));
      // In no pool: nothing listens, and every heartbeat says so.
      expect(lines.filter((l) => l.includes('Pool tunnel'))).toEqual([]);
      expect(beats().length).toBeGreaterThan(0);
      expect(beats().every((b) => b.endpoint === null)).toBe(true);

      // Assigned (a coordinator whose pool is still forming, so only the tunnel opens).
      const seen = beats().length;
      const assignment = {
        pool_id: '0d6f1a2b-4c3e-4f5a-8b7c-9d0e1f2a3b4c',
        model_id: 'glob-tiny-chat',
        role: 'coordinator',
        key: 'ab'.repeat(32),
        healthy: false,
        members: [
          { node_id: NODE_ID, endpoint: null, layers: 6 },
          { node_id: '5b2d8e1f-0a9c-4d7b-b6e3-2f1a0c9d8e7b', endpoint: null, layers: 6 },
        ],
      };
      api.state.pool = assignment;
      await until('the tunnel', () => lines.some((l) => l.startsWith('Pool tunnel listening on ')), 10_000);
      const endpoint = /^Pool tunnel listening on (127\.0\.0\.1:\d+)$/.exec(lines.find((l) => l.startsWith('Pool tunnel listening'))!)![1]!;
      await until('the endpoint reported', () => beats().some((b) => b.endpoint === endpoint), 10_000);
      // The heartbeat that brought the assignment is followed at once by one saying where the tunnel listens, not a
      // heartbeat interval later.
      const after = beats().slice(seen);
      const assigned = after.findIndex((b) => b.endpoint === null);
      const reported = after.findIndex((b) => b.endpoint === endpoint);
      expect(reported).toBe(assigned + 1);
      expect(after[reported]!.at - after[assigned]!.at).toBeLessThan(heartbeatMs / 2);
      const port = Number(endpoint.split(':')[1]);
      expect(await reachable(port)).toBe(true);

      // Dissolved: the tunnel closes and the next heartbeats report none.
      api.state.pool = null;
      await until('the tunnel closed', () => lines.includes('Pool tunnel closed: this node is in no pool now'), 10_000);
      expect(await reachable(port)).toBe(false);
      const closed = beats().length;
      await until('a heartbeat without the tunnel', () => beats().length > closed && beats().at(-1)!.endpoint === null, 10_000);

      // In a pool again: the tunnel listens where it did, so members that knew it need not hear of a new place.
      api.state.pool = assignment;
      await until('the tunnel again', () => lines.filter((l) => l.startsWith('Pool tunnel listening on ')).length === 2, 10_000);
      expect(lines.filter((l) => /^(Pool|Left the pool)/.test(l))).toEqual([
        `Pool tunnel listening on ${endpoint}`,
        'Left the pool',
        'Pool tunnel closed: this node is in no pool now',
        `Pool tunnel listening on ${endpoint}`,
      ]);
    } finally {
      a.stop();
    }
    expect(await exit).toBe(0);
  }, 30_000);
});

/** Whether something accepts connections on 127.0.0.1:`port`. */
function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}
