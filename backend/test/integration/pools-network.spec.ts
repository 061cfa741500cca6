import Ajv from 'ajv';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { splitPartPath } from '@glob/engine/gguf';
import { llamaBin } from '../../../node-agent/src/llama-process';
import { LlamaServer } from '../../../node-agent/src/llama-server';
import { openTunnelClient } from '../../../node-agent/src/pool-tunnel';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { startAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { ledgerCheckCli } from '../support/ledger-check';
import { createNetnsLan, netnsUnavailable, type NetnsLan } from '../support/netns';
import { newUser } from '../support/users';
import { atFirstToken, readSse, replyText, startReply, startWorker, taskOf, type SseEvent, type WorkerProcess } from '../support/worker';

/**
 * One model split across three hosts: three node agents, each in a network namespace of its own on a private LAN,
 * pooled by their owner. The model (12 layers, 41 MB in three split parts) is on the coordinator only and fits no
 * member's memory allocation (40 % of 48 MB); llama.cpp's RPC runs between them through the pool's TLS tunnel.
 */
const POOL_MODEL = 'glob-pool-test';
const LAYERS = 12;
const PROMPT = 'Tell me about the river and the city';
const MAX_TOKENS = 48;
const JOB_LOCK_MS = 4000;
let seq = 0;
const streamId = () => `s_pool_${Date.now().toString(36)}_${++seq}`;

describe('a model split across three hosts (llama.cpp RPC pool)', () => {
  const noNetns = netnsUnavailable();
  let lan: NetnsLan | undefined;
  let stack: TestStack;
  let verifier: WorkerProcess | undefined;
  let bin: string;
  let provider: Awaited<ReturnType<typeof newUser>>;
  let requester: Awaited<ReturnType<typeof newUser>>;
  let work: string;
  let poolId: string;
  /** The reply of the same model on one host: llama-server alone, same source, same prompt. */
  let alone: { text: string; completionTokens: number };
  const members: Array<{ key: string; args: string[]; agent: AgentProcess; nodeId: string; dir: string; on: number | undefined }> = [];

  const launch = (args: string[], on: number | undefined) => startAgent(args, on === undefined ? undefined : lan!.hosts[on]);
  const pools = async () =>
    (await stack.http.get('/api/nodes/pools').set(provider.auth).expect(200)).body.pools as Array<{
      id: string;
      status: string;
      problem: string | null;
      members: Array<{ node_id: string; role: string; layers: number; ready: boolean }>;
    }>;
  async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 90_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await get();
      if (ok(v)) return v;
      if (Date.now() > deadline)
        throw new Error(`${what}: still ${JSON.stringify(v)}\n${members.map((m) => `--- ${m.key}\n${m.agent.output()}`).join('\n')}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  /** What listens on a member's LAN address, in its namespace (empty without namespaces). */
  const listeningOnLan = (i: number): string[] => {
    if (!lan) return [];
    const host = lan.hosts[i]!;
    const lines = execFileSync('ip', ['netns', 'exec', host.name, 'ss', '-ltnH']).toString().split('\n');
    return lines.filter((l) => l.includes(`${host.address}:`));
  };
  const ask = async (user = requester, maxTokens = MAX_TOKENS, onEvent?: (e: SseEvent) => void) => {
    const id = streamId();
    const res = await startReply(stack, user.auth, {
      streamId: id,
      modelId: POOL_MODEL,
      prompt: PROMPT,
      params: { max_tokens: maxTokens, temperature: 0 },
    });
    expect(res.status).toBe(200);
    return { id, events: await readSse(res, onEvent) };
  };

  beforeAll(async () => {
    bin = await llamaBin(undefined, (line) => console.log(line));
    work = await mkdtemp(join(tmpdir(), 'glob-pool-'));
    const coordinatorModels = join(work, 'models-a');
    execFileSync('mkdir', ['-p', coordinatorModels]);
    await symlink(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(coordinatorModels, TINY_MODEL_FILE));
    const first = splitPartPath(join(coordinatorModels, POOL_MODEL), 1, 3);
    await writeTinyLlamaGguf(first, { seed: 7, nLayer: LAYERS, nEmbd: 256, nFf: 768, nHead: 4, splits: 3 });
    const catalog = join(work, 'catalog.json');
    await writeFile(
      catalog,
      JSON.stringify({
        models: [
          { id: 'glob-tiny-chat', name: 'Glob Tiny Chat', parameters: '2M', price_per_token: 0.125, context_length: 2048, path: TINY_MODEL_FILE },
          {
            id: POOL_MODEL,
            name: 'Glob Pool Test',
            parameters: '11M',
            price_per_token: 0.125,
            context_length: 2048,
            path: first.split('/').pop(),
          },
        ],
      }),
    );

    // The same model on one host, for comparison.
    const single = await LlamaServer.start(bin, { modelPath: first, threads: 1, contextSize: 2048, rpc: [], layers: [] }, () => undefined);
    try {
      const r = await single.generate({
        messages: [{ role: 'user', content: PROMPT }],
        sampling: { max_tokens: MAX_TOKENS, temperature: 0, top_p: 0.95, seed: 1 },
      });
      alone = { text: r.text, completionTokens: r.completionTokens };
    } finally {
      await single.stop();
    }

    stack = await startStack({
      host: noNetns ? '127.0.0.1' : '0.0.0.0',
      env: {
        MODEL_CATALOG: catalog,
        // The platform holds the catalog's files itself: it counts their tokens and challenges nodes with them.
        MODELS_DIR: coordinatorModels,
        JOB_LOCK_MS: String(JOB_LOCK_MS),
        JOB_STALLED_INTERVAL_MS: '1000',
        REAPER_INTERVAL_MS: '1000',
        WELCOME_BONUS_GLOB: '5000',
      },
    });
    // A trusted generator for the pooled model (serving no replies): it judges the pool's challenge and spot-checks
    // its replies, as it would any node's.
    verifier = await startWorker(stack, { MODEL_CATALOG: catalog, WORKER_MODELS: POOL_MODEL, WORKER_VERIFY_ONLY: 'true' }, 'pool-verifier');
    if (noNetns) console.warn(`The pool's members run on this host's loopback, not on hosts of their own: ${noNetns}`);
    else lan = createNetnsLan(3);
    provider = await newUser(stack, 'pool-provider');
    requester = await newUser(stack, 'pool-requester');
    const port = new URL(stack.url).port;
    const api = lan ? `http://${lan.gateway}:${port}` : stack.url;
    await Promise.all(
      (['a', 'b', 'c'] as const).map(async (key, i) => {
        const dir = await mkdtemp(join(tmpdir(), `glob-pool-${key}-`));
        const token = await stack.http.post('/api/nodes/join-tokens').set(provider.auth).expect(201);
        const on = lan ? i : undefined;
        const args = [
          ...['--api', api, '--name', `pool-node-${key}`, '--data-dir', dir],
          ...['--models-dir', key === 'a' ? coordinatorModels : process.env.MODELS_DIR!, '--threads', '1', '--gpu', 'off'],
          ...['--memory', '48', '--pool-address', lan ? lan.hosts[i]!.address : '127.0.0.1', '--llama-bin', bin],
        ];
        const agent = launch([...args, '--join-token', token.body.join_token], on);
        await agent.waitFor(new RegExp(`Paired as pool-node-${key} `), 120_000);
        const stored = JSON.parse(await readFile(join(dir, 'credential.json'), 'utf8')) as { node_id: string };
        members[i] = { key, args, agent, nodeId: stored.node_id, dir, on };
      }),
    );
  }, 900_000);

  afterAll(async () => {
    for (const { agent } of members) {
      if (agent && agent.child.exitCode === null && agent.child.signalCode === null) {
        agent.child.kill('SIGINT');
        await Promise.race([agent.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
        if (agent.child.exitCode === null) agent.child.kill('SIGKILL');
      }
    }
    lan?.remove();
    await verifier?.stop();
    await stack?.close();
    if (work) await rm(work, { recursive: true, force: true });
    for (const m of members) if (m) await rm(m.dir, { recursive: true, force: true });
  }, 60_000);

  it('the model fits no member alone; pooled, it is planned by memory, the coordinator holds the only copy, and it becomes available', async () => {
    expect(members[0]!.agent.output()).toMatch(
      /Skipping glob-pool-test: its file \(41\.\d MB\) is larger than 40 % of this machine's memory \(19\.2 MB\)/,
    );
    // In no pool yet: no member's tunnel listens.
    members.forEach((m, i) => {
      expect(m.agent.output()).not.toContain('Pool tunnel');
      expect(listeningOnLan(i)).toEqual([]);
    });
    const made = await stack.http
      .post('/api/nodes/pools')
      .set(provider.auth)
      .send({ name: 'three-hosts', model_id: POOL_MODEL, node_ids: [members[1]!.nodeId, members[0]!.nodeId, members[2]!.nodeId] })
      .expect(201);
    poolId = made.body.id as string;
    const [pool] = await until('the pool to be healthy', pools, (p) => p[0]?.status === 'healthy');
    expect(pool!.problem).toBeNull();
    expect(pool!.members.map((m) => [m.node_id, m.role, m.layers])).toEqual([
      [members[0]!.nodeId, 'coordinator', 4],
      [members[1]!.nodeId, 'shard', 4],
      [members[2]!.nodeId, 'shard', 4],
    ]);
    const models = await stack.http.get('/api/inference/models').set(requester.auth).expect(200);
    expect(models.body.models.find((m: { id: string }) => m.id === POOL_MODEL)).toMatchObject({ status: 'available', nodes: 1 });
    // The coordinator proved the pooled model: the file, and a generation the trusted generator judged.
    const proofs = (await stack.db.query(`SELECT status, generation FROM model_proofs WHERE node_id = $1 AND model_id = $2`, [
      members[0]!.nodeId,
      POOL_MODEL,
    ])) as Array<{ status: string; generation: string }>;
    expect(proofs).toEqual([{ status: 'proven', generation: 'checked' }]);
    // A shard's rpc-server listens on its own loopback only; the pool reaches it through the tunnel on the LAN address.
    if (lan) {
      const listening = execFileSync('ip', ['netns', 'exec', lan.hosts[1]!.name, 'ss', '-ltnpH']).toString();
      const rpc = listening.split('\n').filter((l) => l.includes('ggml-rpc-server'));
      expect(rpc.length).toBeGreaterThan(0);
      for (const l of rpc) expect(l).toMatch(/\s127\.0\.0\.1:\d+\s/);
      expect(listening).toMatch(new RegExp(`${lan.hosts[1]!.address.replace(/\./g, '\\.')}:\\d+`));
    }
    // Each member opened its tunnel at its assignment, once, and told the platform at once: nothing restarted while
    // the pool formed.
    members.forEach((m, i) => {
      const address = lan ? lan.hosts[i]!.address : '127.0.0.1';
      expect(m.agent.output().match(/Pool tunnel listening on .*/g)).toEqual([
        expect.stringMatching(new RegExp(`^Pool tunnel listening on ${address}:\\d+$`)),
      ]);
      expect(m.agent.output()).not.toMatch(/restarting this node|cannot serve yet/);
    });
    expect(members[0]!.agent.output().match(/Pool [0-9a-f]{8}: serving glob-pool-test$/gm)).toHaveLength(1);
  }, 180_000);

  it('a reply split over the three hosts is token-for-token the reply of the same model on one host, and its reward is shared by layers', async () => {
    const { id, events } = await ask();
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', usage: { completion_tokens: alone.completionTokens } });
    expect(replyText(events)).toBe(alone.text);
    expect(alone.completionTokens).toBe(MAX_TOKENS);
    const t = await taskOf(stack, id);
    expect(t).toMatchObject({ status: 'completed', node_id: members[0]!.nodeId });
    const shares = (await stack.db.query(`SELECT node_id, units::int, layers FROM node_reward_shares WHERE task_id = $1 ORDER BY node_id`, [
      t.id,
    ])) as Array<{ node_id: string; units: number; layers: number }>;
    expect(shares.map((s) => s.layers)).toEqual([4, 4, 4]);
    expect(new Set(shares.map((s) => s.node_id))).toEqual(new Set(members.map((m) => m.nodeId)));
    const [reward] = (await stack.db.query(`SELECT units::int FROM node_rewards WHERE task_id = $1`, [t.id])) as Array<{ units: number }>;
    expect(shares.reduce((n, s) => n + s.units, 0)).toBe(reward!.units);
    for (const s of shares) expect(Math.abs(s.units - reward!.units / 3)).toBeLessThanOrEqual(1);
    // A pool is verified as any node is: its coordinator's commitment (llama-server's numbers over RPC) is what
    // node-llama-cpp recomputes on one host.
    const [check] = await until(
      'the spot check of the pooled reply',
      async () => (await stack.db.query(`SELECT status FROM spot_checks WHERE task_id = $1`, [t.id])) as Array<{ status: string }>,
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      60_000,
    );
    expect(check).toEqual({ status: 'passed' });
  }, 120_000);

  it('through /v1, the pool serves a tool call and a json_schema answer, generated under the grammar on its coordinator, and logprobs', async () => {
    const args = {
      type: 'object',
      properties: { city: { enum: ['Paris', 'Tokyo'] }, tomorrow: { type: 'boolean' } },
      required: ['city', 'tomorrow'],
      additionalProperties: false,
    };
    const validate = new Ajv().compile(args);
    const { key } = (await stack.http.post('/api/api-keys').set(requester.auth).send({ name: 'pool-tools' }).expect(201)).body as { key: string };
    const openai = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const called = await openai.chat.completions.create({
      model: POOL_MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: args } }],
      tool_choice: 'required',
      max_tokens: 400,
    });
    const call = called.choices[0]!.message.tool_calls![0]!;
    expect(called.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && validate(JSON.parse(call.function.arguments))).toBe(true);
    const structured = await openai.chat.completions.create({
      model: POOL_MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: args } },
      max_tokens: 400,
    });
    expect(validate(JSON.parse(structured.choices[0]!.message.content!))).toBe(true);
    const ids = [called.id, structured.id].map((id) => id.replace(/^chatcmpl-/, ''));
    const tasks = (await stack.db.query(`SELECT id, node_id FROM inference_tasks WHERE stream_id = ANY($1)`, [ids])) as Array<{
      id: string;
      node_id: string;
    }>;
    expect(tasks.map((t) => t.node_id)).toEqual([members[0]!.nodeId, members[0]!.nodeId]);
    // Both are verified like any node's replies: the coordinator commits to llama-server's own numbers for the tokens
    // it sampled under the grammar, and the verifier's recomputation agrees.
    const checks = await until(
      'the verifications of the pooled JSON replies',
      async () =>
        (await stack.db.query(`SELECT status FROM spot_checks WHERE task_id = ANY($1)`, [tasks.map((t) => t.id)])) as Array<{ status: string }>,
      (rows) => rows.length === 2 && rows.every((r) => r.status !== 'pending'),
      60_000,
    );
    expect(checks).toEqual([{ status: 'passed' }, { status: 'passed' }]);

    // logprobs from the coordinator's llama-server: the answer's tokens, each the likeliest at temperature 0.
    const scored = await openai.chat.completions.create({
      model: POOL_MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      logprobs: true,
      top_logprobs: 2,
      temperature: 0,
      max_tokens: 12,
    });
    const text = scored.choices[0]!.message.content!;
    const tokens = scored.choices[0]!.logprobs!.content!;
    expect(text.length).toBeGreaterThan(0);
    expect(tokens.map((t) => t.token).join('')).toBe(text);
    for (const t of tokens) expect(t.logprob).toBeCloseTo(t.top_logprobs[0]!.logprob, 4);
    const [served] = (await stack.db.query(`SELECT node_id FROM inference_tasks WHERE stream_id = $1`, [
      scored.id.replace(/^chatcmpl-/, ''),
    ])) as Array<{
      node_id: string;
    }>;
    expect(served).toEqual({ node_id: members[0]!.nodeId });
  }, 120_000);

  it("the tunnel lets nothing through without the pool's key", async () => {
    const shard = (await pools())[0]!.members[1]!;
    const endpoint = (
      (await stack.db.query(`SELECT pool_endpoint FROM nodes WHERE id = $1`, [shard.node_id])) as Array<{ pool_endpoint: string }>
    )[0]!.pool_endpoint;
    const wrong = await openTunnelClient({ remote: endpoint, key: Buffer.alloc(32, 7), identity: poolId, log: () => undefined });
    try {
      const received = await new Promise<number>((resolve) => {
        let bytes = 0;
        const s = connect(wrong.port, '127.0.0.1', () => s.write(Buffer.alloc(64, 1)));
        s.on('data', (d) => (bytes += d.length));
        s.on('error', () => undefined);
        // Given up on after 5 s; cleared when the tunnel closes first, so no timer outlives the test.
        const giveUp = setTimeout(() => s.destroy(), 5_000);
        s.on('close', () => {
          clearTimeout(giveUp);
          resolve(bytes);
        });
      });
      expect(received).toBe(0);
    } finally {
      await wrong.close();
    }
    // The pool itself is untouched.
    expect((await pools())[0]!.status).toBe('healthy');
  }, 30_000);

  it('a member killed mid-reply: a clean error, no charge, the ledger reconciles, the pool is degraded, then healthy again when it returns', async () => {
    const victim = members[2]!;
    const before = (await stack.http.get(`/api/wallet/${requester.id}/balance`).set(requester.auth).expect(200)).body as { balance: number };
    const { id, events } = await ask(
      requester,
      400,
      atFirstToken(() => victim.agent.child.kill('SIGKILL')),
    );
    expect(events.at(-1)!.data).toMatchObject({ type: 'error' });
    const t = await taskOf(stack, id);
    expect(t.status).toBe('failed');
    expect(Number(t.charged_units)).toBe(0);
    const after = (await stack.http.get(`/api/wallet/${requester.id}/balance`).set(requester.auth).expect(200)).body as {
      balance: number;
      pending_balance: number;
    };
    expect(after.balance).toBe(before.balance);
    expect(after.pending_balance).toBe(0);
    expect(await stack.db.query(`SELECT 1 FROM node_rewards WHERE task_id = $1`, [t.id])).toEqual([]);
    expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    const check = await ledgerCheckCli(stack);
    expect(check.code).toBe(0);

    await until('the pool to be degraded', pools, (p) => p[0]?.status === 'degraded', 30_000);
    const models = await stack.http.get('/api/inference/models').set(requester.auth).expect(200);
    expect(models.body.models.find((m: { id: string }) => m.id === POOL_MODEL)).toMatchObject({ status: 'unavailable' });

    // The member comes back (its stored credential, no join token): the pool heals and serves the same reply again.
    victim.agent = launch(victim.args, victim.on);
    await until('the pool to be healthy again', pools, (p) => p[0]?.status === 'healthy', 120_000);
    await until(
      'the pooled model to be offered again',
      async () =>
        (await stack.http.get('/api/inference/models').set(requester.auth).expect(200)).body.models.find((m: { id: string }) => m.id === POOL_MODEL),
      (m: { status: string }) => m.status === 'available',
    );
    const again = await ask();
    expect(replyText(again.events)).toBe(alone.text);
  }, 300_000);

  it('dissolved: every member stops its part and closes its tunnel, and the model is no longer offered', async () => {
    await stack.http.delete(`/api/nodes/pools/${poolId}`).set(provider.auth).expect(204);
    await Promise.all(members.map((m) => m.agent.waitFor(/Pool tunnel closed: this node is in no pool now/, 30_000)));
    members.forEach((m, i) => {
      expect(m.agent.output()).toContain('Left the pool');
      expect(listeningOnLan(i)).toEqual([]);
    });
    await until(
      'the pooled model to be withdrawn',
      async () =>
        (await stack.http.get('/api/inference/models').set(requester.auth).expect(200)).body.models.find((m: { id: string }) => m.id === POOL_MODEL),
      (m: { status: string }) => m.status === 'unavailable',
      30_000,
    );
    // Their next heartbeats tell the platform they listen nowhere.
    await until(
      'no member to report a tunnel',
      async () => (await stack.db.query(`SELECT pool_endpoint FROM nodes WHERE id = ANY($1::uuid[])`, [members.map((m) => m.nodeId)])) as unknown[],
      (rows) => rows.length === 3 && rows.every((r) => (r as { pool_endpoint: string | null }).pool_endpoint === null),
      30_000,
    );
  }, 90_000);
});
