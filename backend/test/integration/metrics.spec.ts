import { startStack, TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, spawnWorker, startReply, startWorker, taskOf, WorkerProcess } from '../support/worker';

const TOKEN = 'metrics-token-for-the-tests-0123456789';
const MODEL = 'glob-tiny-chat';
/** A catalog model no worker here serves: a scripted node takes its jobs. */
const REMOTE_MODEL = 'llama-3.2-1b-instruct';
let seq = 0;
const streamId = () => `m_${Date.now().toString(36)}_${++seq}`;

/** One sample of Prometheus' text format: the value of `name` whose labels include every label given; NaN when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return NaN;
}

const workerPort = (w: { output(): string }) => Number(/Metrics and health probes on port (\d+)/.exec(w.output())?.[1]);

async function waitForPort(w: { output(): string }): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (!workerPort(w)) {
    if (Date.now() > deadline) throw new Error(`no probe port in the worker's output:\n${w.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return workerPort(w);
}

describe('metrics and health probes: Prometheus on the API and the worker', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let workerUrl: string;
  /** The API's log lines. */
  const captured: string[] = [];
  /** The remote node of the tests below, and the user whose replies it serves. */
  let remoteNode: ScriptedNode;
  let remoteAsker: Awaited<ReturnType<typeof newUser>>;
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    stack = await startStack({
      env: { METRICS_TOKEN: TOKEN, JOIN_TOKEN_RATE_LIMIT: '50' },
      logs: { write: (line: string) => void captured.push(line) },
    });
    worker = await startWorker(stack, { METRICS_TOKEN: TOKEN, WORKER_PORT: '0' }, `metrics-worker-${Date.now()}`);
    workerUrl = `http://127.0.0.1:${await waitForPort(worker)}`;
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
  }, 60_000);

  it('answers only the bearer of METRICS_TOKEN: 401 without it or with another, on the API and the worker', async () => {
    for (const url of [stack.url, workerUrl]) {
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const wrong = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ statusCode: 401, message: 'A valid metrics token is required.' });
    }
    const res = await stack.http.get('/metrics');
    expectSpecResponse(res, 'getMetrics');
  });

  it("a chat reply shows in the worker's inference histograms and the API's queue, HTTP and ledger figures", async () => {
    const u = await newUser(stack, 'metered');
    const id = streamId();
    const events = await readSse(
      await startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Hello there', params: { max_tokens: 24 } }),
    );
    const done = events.at(-1)!.data;
    expect(done.type).toBe('done');
    const usage = done.usage!;
    const charged = Number((await taskOf<{ charged_units: string }>(stack, id)).charged_units);

    const w = await scrape(workerUrl);
    const mine = { model: MODEL, kind: 'worker', process: 'worker' };
    expect(sample(w, 'glob_inference_time_to_first_token_seconds_count', mine)).toBe(1);
    expect(sample(w, 'glob_inference_time_to_first_token_seconds_sum', mine)).toBeGreaterThan(0);
    expect(sample(w, 'glob_inference_tokens_per_second_count', mine)).toBe(usage.completion_tokens > 1 ? 1 : 0);
    expect(sample(w, 'glob_inference_replies_total', { ...mine, outcome: 'completed' })).toBe(1);
    expect(sample(w, 'glob_inference_tokens_total', { ...mine, type: 'completion' })).toBe(usage.completion_tokens);
    expect(sample(w, 'glob_inference_tokens_total', { ...mine, type: 'prompt' })).toBe(usage.prompt_tokens);
    expect(sample(w, 'glob_queue_wait_seconds_count', { queue: `inference.${MODEL}`, process: 'worker' })).toBe(1);
    // Node's own process metrics come along.
    expect(sample(w, 'process_cpu_user_seconds_total', { process: 'worker' })).toBeGreaterThan(0);

    const api = await scrape(stack.url);
    expect(sample(api, 'glob_queue_jobs', { queue: `inference.${MODEL}`, state: 'completed' })).toBe(1);
    expect(sample(api, 'glob_queue_jobs', { queue: `inference.${MODEL}`, state: 'waiting' })).toBe(0);
    expect(sample(api, 'glob_http_request_duration_seconds_count', { method: 'POST', route: '/api/inference/stream/start', status: '200' })).toBe(1);
    expect(sample(api, 'glob_nodes_online', { model: MODEL, kind: 'worker' })).toBe(1);
    expect(sample(api, 'glob_ledger_milliglob_total', { type: 'spending' })).toBe(charged);
    expect(sample(api, 'glob_ledger_holds_open')).toBe(0);
    expect(sample(api, 'glob_active_streams', { process: 'api' })).toBe(0);
    expect(sample(api, 'glob_node_tasks_last_hour', { model: MODEL, kind: 'worker', status: 'completed' })).toBe(1);
  }, 60_000);

  it("a remote node's reply is timed by the API with kind remote; its failure is counted by model and kind", async () => {
    const owner = await newUser(stack, 'remote-owner');
    const node = (remoteNode = await ScriptedNode.pair(stack, owner, { models: [REMOTE_MODEL] }));
    const u = (remoteAsker = await newUser(stack, 'remote-user'));
    const served = startReply(stack, u.auth, { streamId: streamId(), modelId: REMOTE_MODEL, prompt: 'Hi', params: { max_tokens: 8 } }).then(readSse);
    const job = (await node.claim())!;
    await node.send(job.job_id, [{ type: 'token', text: 'Hello' }]);
    await node.send(job.job_id, [
      { type: 'token', text: ' there' },
      { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 2 }, stop_reason: 'stop' },
    ]);
    expect((await served).at(-1)!.data.type).toBe('done');

    const failing = startReply(stack, u.auth, { streamId: streamId(), modelId: REMOTE_MODEL, prompt: 'Hi', params: { max_tokens: 8 } }).then(readSse);
    const second = (await node.claim())!;
    await node.send(second.job_id, [{ type: 'error', message: 'out of memory' }]);
    expect((await failing).at(-1)!.data.type).toBe('error');

    const api = await scrape(stack.url);
    const remote = { model: REMOTE_MODEL, kind: 'remote', process: 'api' };
    expect(sample(api, 'glob_inference_time_to_first_token_seconds_count', remote)).toBe(1);
    expect(sample(api, 'glob_inference_replies_total', { ...remote, outcome: 'completed' })).toBe(1);
    expect(sample(api, 'glob_inference_replies_total', { ...remote, outcome: 'failed' })).toBe(1);
    expect(sample(api, 'glob_queue_wait_seconds_count', { queue: `inference.${REMOTE_MODEL}`, process: 'api' })).toBe(2);
    expect(sample(api, 'glob_errors_total', { type: 'INTERNAL_ERROR' })).toBeGreaterThanOrEqual(1);
    expect(sample(api, 'glob_node_tasks_last_hour', { model: REMOTE_MODEL, kind: 'remote', status: 'failed' })).toBe(1);
    expect(sample(api, 'glob_node_tasks_last_hour', { model: REMOTE_MODEL, kind: 'remote', status: 'completed' })).toBe(1);
    // One failure in two tasks: a node with failures, not a failing one.
    expect(sample(api, 'glob_nodes_with_failed_tasks_last_hour', { failing: 'false' })).toBe(1);
    expect(sample(api, 'glob_nodes_with_failed_tasks_last_hour', { failing: 'true' })).toBe(0);
    expect(sample(api, 'glob_nodes_online', { model: REMOTE_MODEL, kind: 'remote' })).toBe(1);
  }, 60_000);

  it("a node failing most of its tasks is counted without its id, and named once in the API's log", async () => {
    // The node of the test before fails 4 more: 5 of its 6 tasks.
    for (let i = 0; i < 4; i++) {
      const failed = startReply(stack, remoteAsker.auth, {
        streamId: streamId(),
        modelId: REMOTE_MODEL,
        prompt: 'Hi',
        params: { max_tokens: 8 },
      }).then(readSse);
      const job = (await remoteNode.claim())!;
      await remoteNode.send(job.job_id, [{ type: 'error', message: 'out of memory' }]);
      expect((await failed).at(-1)!.data.type).toBe('error');
    }

    const api = await scrape(stack.url);
    expect(sample(api, 'glob_nodes_with_failed_tasks_last_hour', { failing: 'true' })).toBe(1);
    expect(sample(api, 'glob_nodes_with_failed_tasks_last_hour', { failing: 'false' })).toBe(0);
    expect(sample(api, 'glob_node_tasks_last_hour', { model: REMOTE_MODEL, kind: 'remote', status: 'failed' })).toBe(5);
    expect(api).not.toContain(remoteNode.id);
    await scrape(stack.url);
    const named = captured
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.node_id === remoteNode.id && l.context === 'Metrics');
    // Two scrapes, one line: it is named when it starts failing.
    expect(named).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: `Node ${remoteNode.id} is failing: 5 of 6 tasks failed in the last hour`,
        failed: 5,
        completed: 1,
      }),
    ]);
  }, 60_000);

  it('liveness and readiness on the API and the worker (ready: database, Redis and a model loaded)', async () => {
    const live = await stack.http.get('/api/health/live').expect(200);
    expectSpecResponse(live, 'getLiveness');
    const ready = await stack.http.get('/api/health/ready').expect(200);
    expectSpecResponse(ready, 'getReadiness');
    expect(ready.body.checks).not.toHaveProperty('models');

    expect((await fetch(`${workerUrl}/api/health/live`)).status).toBe(200);
    const workerReady = await fetch(`${workerUrl}/api/health/ready`);
    expect(workerReady.status).toBe(200);
    expect(await workerReady.json()).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'up' }, redis: { status: 'up' }, models: { status: 'up' } },
    });
  });

  it('a worker with no model loaded is alive but not ready', async () => {
    // The catalog's 8B model has no file here: the worker starts, loads nothing and serves nothing.
    const idle = spawnWorker(stack, { WORKER_MODELS: 'llama-3-8b-instruct', WORKER_PORT: '0' }, `idle-worker-${Date.now()}`);
    try {
      const url = `http://127.0.0.1:${await waitForPort(idle)}`;
      expect((await fetch(`${url}/api/health/live`)).status).toBe(200);
      const res = await fetch(`${url}/api/health/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: 'degraded',
        checks: { database: { status: 'up' }, models: { status: 'down', error: 'No model loaded' } },
      });
    } finally {
      idle.child.kill('SIGTERM');
    }
  }, 60_000);

  it('is not there at all (404) when no METRICS_TOKEN is set', async () => {
    // Last: a second API in this process takes over process-wide parts (passport's strategy) from the first.
    const bare = await startStack();
    try {
      const res = await bare.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expectSpecResponse(res, 'getMetrics');
    } finally {
      await bare.close();
    }
  });
});
