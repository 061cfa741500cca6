import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { type AgentProcess, killAgent, pairAgent, untilAvailable } from '../support/agent';
import { API_METRICS_TOKEN, type ApiProcess, type Proxy, startApiProcess, startNginx } from '../support/api-process';
import { startStack, type TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { closeChecked } from '../support/ledger-check';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, startWorker, taskOf, type SseEvent, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** A model no worker serves here: its jobs wait for the scripted nodes. */
const NODE_MODEL = 'llama-3.2-1b-instruct';
const LOGIN_LIMIT = 4;
let seq = 0;
const streamId = () => `mp_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/** A reply started through `base` (an API process or the proxy), its event stream as a fetch Response. */
const start = (base: string, u: User, id: string, maxTokens: number, modelId = MODEL) =>
  fetch(`${base}/api/inference/stream/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...u.auth },
    body: JSON.stringify({ streamId: id, modelId, prompt: 'A long answer please', params: { max_tokens: maxTokens, temperature: 0 } }),
  });

/** The count of HTTP requests a process has served (of one route, if given), from its own GET /metrics. */
async function served(api: ApiProcess, route?: string): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${API_METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('glob_http_request_duration_seconds_count{') && (!route || l.includes(`route="${route}"`)))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/**
 * The platform as it runs at scale: two API processes (src/main.ts, as `make serve API_PROCESSES=2` starts them) behind
 * Debian's nginx, round robin, two workers, and nodes that reach whichever API process the proxy picks. Whatever lives
 * in PostgreSQL and Redis (streams, stops, rate limits, idempotency keys, claims, the fair queue) holds across them.
 */
describe('two API processes behind nginx, with two workers', () => {
  let stack: TestStack;
  let apis: ApiProcess[] = [];
  let proxy: Proxy;
  let workers: WorkerProcess[] = [];
  let agents: AgentProcess[] = [];
  let dataDir: string;

  beforeAll(async () => {
    const env = { LOGIN_RATE_LIMIT: String(LOGIN_LIMIT), WELCOME_BONUS_GLOB: '1000', HEARTBEAT_SECONDS: '2' };
    stack = await startStack({ env });
    apis = await Promise.all(['api-a', 'api-b'].map((name) => startApiProcess(stack, name, env)));
    proxy = await startNginx(apis.map((a) => a.url));
    workers = await Promise.all(['mp-worker-1', 'mp-worker-2'].map((name) => startWorker(stack, {}, name)));
    dataDir = await mkdtemp(join(tmpdir(), 'glob-multi-process-'));
  }, 180_000);
  afterAll(async () => {
    await Promise.all(agents.map((a) => killAgent(a)));
    await Promise.all(workers.map((w) => w.stop()));
    await proxy?.stop();
    await Promise.all(apis.map((a) => a.stop()));
    await closeChecked(stack, dataDir);
  }, 60_000);

  it('the proxy spreads requests over both processes; each process’s metrics are scraped on its own', async () => {
    const u = await newUser(stack, 'spread');
    const before = await Promise.all(apis.map((a) => served(a)));
    for (let i = 0; i < 20; i++) expect((await fetch(`${proxy.url}/api/inference/models`, { headers: u.auth })).status).toBe(200);
    const after = await Promise.all(apis.map((a) => served(a)));
    // Round robin: about half each (the scrapes themselves count too).
    for (const [i, n] of after.entries()) expect(n - before[i]!).toBeGreaterThanOrEqual(8);
  });

  it('a reply started through one API is followed after a reload through the other, every event once and in order', async () => {
    const u = await newUser(stack, 'reloader');
    const id = streamId();
    const first = await readSse(await start(apis[0]!.url, u, id, 400), (e) => (e.data.type === 'token' && e.id >= 3 ? 'stop' : undefined));
    const seen = first.at(-1)!.id;
    // The page reloads: the browser reconnects with Last-Event-ID, and the proxy sends it to the other process.
    const rest = await readSse(await fetch(`${apis[1]!.url}/api/inference/stream/${id}`, { headers: { ...u.auth, 'last-event-id': String(seen) } }));
    const ids = [...first, ...rest].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const done = rest.at(-1)!.data;
    expect(done).toMatchObject({ type: 'done', stop_reason: 'length' });
    const text = [...first, ...rest].map((e: SseEvent) => e.data.text ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(await taskOf(stack, id)).toMatchObject({ status: 'completed', completion_tokens: done.usage!.completion_tokens });
  }, 60_000);

  it('a reply is stopped through either process, whichever serves its stream', async () => {
    for (const [reader, stopper] of [
      [0, 1],
      [1, 0],
    ] as const) {
      const u = await newUser(stack, `stopper-${reader}`);
      const id = streamId();
      let stopped: Promise<Response> | undefined;
      const events = await readSse(await start(apis[reader]!.url, u, id, 1500), (e) => {
        if (e.data.type === 'token' && !stopped)
          stopped = fetch(`${apis[stopper]!.url}/api/inference/stream/${id}/stop`, { method: 'POST', headers: u.auth });
      });
      expect((await stopped!).status).toBe(200);
      expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
      expect(events.at(-1)!.data.usage!.completion_tokens).toBeLessThan(1500);
    }
  }, 60_000);

  it('a sign-in rate limit counts attempts on every process: past it, both refuse', async () => {
    const u = await newUser(stack, 'limited');
    const login = (api: ApiProcess, password: string) =>
      request(api.url).post('/api/users/login').set('X-Forwarded-For', '10.77.0.1').send({ email: u.email, password });
    for (let i = 0; i < LOGIN_LIMIT; i++) expect((await login(apis[i % 2]!, 'not the password')).status).toBe(401);
    for (const api of apis) {
      const res = await login(api, 'a quiet mountain stream');
      expect(res.status).toBe(429);
      expectSpecResponse(res, 'login');
    }
  });

  it('an Idempotency-Key sent to both processes at once has one effect, and both answer the same', async () => {
    const a = await newUser(stack, 'payer');
    const b = await newUser(stack, 'payee');
    await request(proxy.url).post(`/api/wallet/${a.id}/purchase`).set(a.auth).send({ package_id: 'starter', amount: 1000, price: 10 }).expect(201);
    const send = (api: ApiProcess) =>
      request(api.url)
        .post(`/api/wallet/${a.id}/transfer`)
        .set(a.auth)
        .set('Idempotency-Key', 'mp-order-1')
        .send({ to_address: b.address, amount: 7 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => send(apis[i % 2]!)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
    // The payee got 7 GLOB once (beside its welcome bonus), and the payer's bought 1,000 lost 7 once.
    const balance = async (u: User) =>
      (await request(proxy.url).get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body as { balance: number };
    expect((await balance(b)).balance).toBe(1000 + 7);
    expect((await balance(a)).balance).toBe(1000 + 1000 - 7);
  });

  it('nodes claiming through different processes never get the same job, and the fair queue holds across them', async () => {
    const owner = await newUser(stack, 'mp-owner');
    // Each node speaks to its own process (the proxy would mix them; here it is certain that both are used).
    const nodes = await Promise.all(
      apis.map((api) => ScriptedNode.pair({ ...stack, http: request(api.url) } as TestStack, owner, { models: [NODE_MODEL] })),
    );
    // One user queues three replies through the first process; another, one through the second, after them.
    const busy = await newUser(stack, 'mp-busy');
    const other = await newUser(stack, 'mp-other');
    const ids = { busy: [streamId(), streamId(), streamId()], other: streamId() };
    const readers = ids.busy.map((id) => start(apis[0]!.url, busy, id, 8, NODE_MODEL).then(readSse));
    await new Promise((r) => setTimeout(r, 300));
    readers.push(start(apis[1]!.url, other, ids.other, 8, NODE_MODEL).then(readSse));
    await new Promise((r) => setTimeout(r, 300));
    // The nodes claim at once, each through its process, until the four are taken.
    const claimed: string[] = [];
    while (claimed.length < 4) {
      const jobs = await Promise.all(nodes.map((n) => n.claim(2)));
      for (const [i, job] of jobs.entries()) {
        if (!job) continue;
        claimed.push(job.job_id);
        await nodes[i]!.send(job.job_id, [
          { type: 'token', text: 'Served' },
          { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop' },
        ]);
      }
    }
    expect(new Set(claimed).size).toBe(4);
    expect([...claimed].sort()).toEqual([...ids.busy, ids.other].sort());
    // Fair order: the other user's reply is taken before the busy user's second and third.
    expect(claimed.indexOf(ids.other)).toBeLessThan(Math.max(claimed.indexOf(ids.busy[1]!), claimed.indexOf(ids.busy[2]!)));
    for (const events of await Promise.all(readers)) expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'stop' });
  }, 90_000);

  it('two node agents behind the proxy serve replies, each reply’s events one streamed request, every event once and in order', async () => {
    const owner = await newUser(stack, 'mp-agents');
    const viaProxy = { url: proxy.url, http: request(proxy.url) };
    // Paired and proven while the workers run (a worker judges their challenges), then the workers go.
    agents = await Promise.all([1, 2].map((i) => pairAgent(viaProxy, owner, `mp-agent-${i}`, join(dataDir, `agent-${i}`), { models: [MODEL] })));
    for (const agent of agents) await agent.waitFor(new RegExp(`Answered the platform's challenge for ${MODEL}`), 60_000);
    const agentNodes = ((await stack.db.query(`SELECT id FROM nodes WHERE name LIKE 'mp-agent-%'`)) as Array<{ id: string }>).map((r) => r.id);
    expect(agentNodes).toHaveLength(2);
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
    const u = await newUser(stack, 'mp-agent-user');
    await untilAvailable(stack, u, MODEL, agents[0]!);
    const counts = () =>
      Promise.all(
        apis.map(async (a) => ({
          streams: await served(a, '/api/nodes/jobs/{jobId}/events/stream'),
          calls: await served(a, '/api/nodes/jobs/{jobId}/events'),
        })),
      );
    const before = await counts();
    const ids = Array.from({ length: 12 }, streamId);
    const replies = await Promise.all(ids.map((id) => start(proxy.url, u, id, 120).then(readSse)));
    for (const [i, events] of replies.entries()) {
      expect(events.map((e) => e.id)).toEqual(events.map((_, j) => j + 1));
      expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
      const task = await taskOf<{ node_id: string; status: string }>(stack, ids[i]!);
      expect(task.status).toBe('completed');
      expect(agentNodes).toContain(task.node_id);
    }
    // Each reply's events went as one streamed request through the proxy (it passes bodies on as they come), and none
    // a request per batch. (Which process took each is round robin's: with the agents' claims in between, regular
    // traffic can put every stream on one process, so that is not asserted.)
    const after = await counts();
    expect(after.reduce((sum, n, i) => sum + n.streams - before[i]!.streams, 0)).toBe(ids.length);
    expect(after.map((n) => n.calls)).toEqual(before.map((n) => n.calls));
  }, 180_000);
});
