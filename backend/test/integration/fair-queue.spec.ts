import type Redis from 'ioredis';
import { inferenceQueue } from '../../src/jobs/jobs';
import { JobsService } from '../../src/jobs/jobs.service';
import { FairQueue } from '../../src/modules/inference/fair-queue';
import { REDIS } from '../../src/redis/redis.module';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { startStack, TestStack } from '../support/app';
import { expectSpecResponse } from '../support/contract';
import { ScriptedNode } from '../support/scripted-node';
import { newUser } from '../support/users';
import { readSse, SseEvent, startReply, taskOf } from '../support/worker';

const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = (who: string) => `fq_${who}_${Date.now().toString(36)}_${++seq}`;
type User = Awaited<ReturnType<typeof newUser>>;

/**
 * Fair queueing on real PostgreSQL + Redis: a scripted node claims one job at a time, so the order replies are taken
 * in is read exactly, and nothing else takes them meanwhile.
 */
describe('fair queueing: one user’s burst does not starve the others', () => {
  let stack: TestStack;
  let owner: User;
  let node: ScriptedNode;
  let fair: FairQueue;

  beforeAll(async () => {
    // The node reports in only when the test says so: it stays live for a long heartbeat window.
    stack = await startStack({ env: { HEARTBEAT_SECONDS: '60', REAPER_INTERVAL_MS: '300' } });
    owner = await newUser(stack, 'fq-owner');
    node = await ScriptedNode.pair(stack, owner, { models: [MODEL], slots: 1 });
    fair = stack.app.get(FairQueue);
  }, 60_000);
  afterAll(async () => {
    if (stack) expect(await stack.app.get(LedgerService).reconcile()).toEqual([]);
    await stack?.close();
  }, 60_000);

  const load = async (u: User) => {
    const res = await stack.http.get('/api/inference/models').set(u.auth).expect(200);
    expectSpecResponse(res, 'listModels');
    const m = (res.body.models as Array<{ id: string; waiting: number; running: number }>).find((x) => x.id === MODEL)!;
    return { waiting: m.waiting, running: m.running };
  };
  const until = async (what: () => Promise<boolean>, label: string) => {
    const deadline = Date.now() + 15_000;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Starts a reply, its events read in the background (`reading`), and answers once its job waits in the queue. */
  const ask = async (u: User, id: string): Promise<{ reading: Promise<SseEvent[]> }> => {
    const reading = startReply(stack, u.auth, { streamId: id, modelId: MODEL, prompt: 'Tell me about rivers', params: { max_tokens: 16 } }).then(
      (res) => {
        if (res.status !== 200) throw new Error(`start ${res.status} ${JSON.stringify(res.statusText)}`);
        return readSse(res);
      },
    );
    reading.catch(() => undefined);
    await until(async () => (await stack.app.get(JobsService).state(inferenceQueue(MODEL), id)) !== 'missing', `job ${id}`);
    return { reading };
  };
  const priorityOf = async (id: string) => (await stack.app.get(JobsService).queue(inferenceQueue(MODEL)).getJob(id))!.opts.priority;

  it('serves another user’s reply before the rest of a burst queued earlier, through the app and /v1 alike; the model list says how busy the model is', async () => {
    const burst = await newUser(stack, 'fq-burst');
    const other = await newUser(stack, 'fq-other');
    expect(await load(other)).toEqual({ waiting: 0, running: 0 });

    // The burst: three replies in the app, then a fourth through the OpenAI-compatible API (the same queue and rule).
    const ids = [streamId('a'), streamId('a'), streamId('a')];
    const readers: Array<Promise<unknown>> = [];
    for (const id of ids) readers.push((await ask(burst, id)).reading);
    const key = (await stack.http.post('/api/api-keys').set(burst.auth).send({ name: 'burst' }).expect(201)).body.key as string;
    readers.push(
      fetch(`${stack.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'And about lakes?' }], max_tokens: 16 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { choices: Array<{ message: { content: string } }> } })),
    );
    let apiStream = '';
    await until(async () => {
      const [row] = (await stack.db.query(`SELECT stream_id FROM inference_tasks WHERE user_id = $1 AND api_key_id IS NOT NULL`, [
        burst.id,
      ])) as Array<{
        stream_id: string;
      }>;
      apiStream = row?.stream_id ?? '';
      return Boolean(apiStream) && (await stack.app.get(JobsService).state(inferenceQueue(MODEL), apiStream)) !== 'missing';
    }, 'the /v1 reply’s job');
    ids.push(apiStream);
    expect(await fair.open(burst.id, MODEL)).toBe(4);
    expect(await Promise.all(ids.map(priorityOf))).toEqual([1, 2, 3, 4]);

    // Asked after the whole burst was queued: first of its user, so it goes before the burst's second.
    const late = streamId('b');
    readers.push((await ask(other, late)).reading);
    expect(await priorityOf(late)).toBe(1);
    expect(await fair.open(other.id, MODEL)).toBe(1);
    // No node has taken anything yet: everything waits, in both lists.
    expect(await load(other)).toEqual({ waiting: 5, running: 0 });
    const v1 = await stack.http
      .get('/v1/models')
      .set({ Authorization: `Bearer ${key}` })
      .expect(200);
    expectSpecResponse(v1, 'listOpenAiModels');
    expect(v1.body.data).toEqual([expect.objectContaining({ id: MODEL, waiting: 5, running: 0 })]);

    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = (await node.claim(2))!;
      expect(job).not.toBeNull();
      order.push(job.job_id);
      expect(await load(other)).toEqual({ waiting: 4 - i, running: 1 });
      expect((await node.finish(job.job_id, 'Rivers flow.')).status).toBe(200);
    }
    expect(order).toEqual([ids[0], late, ids[1], ids[2], ids[3]]);

    const ended = await Promise.all(readers);
    for (const events of ended.slice(0, 3).concat(ended.slice(4)) as SseEvent[][]) expect(events.at(-1)!.data).toMatchObject({ type: 'done' });
    expect(ended[3]).toMatchObject({ status: 200, body: { choices: [{ message: { content: 'Rivers flow.' } }] } });
    expect(await load(other)).toEqual({ waiting: 0, running: 0 });
    expect(await fair.open(burst.id, MODEL)).toBe(0);
    expect(await fair.open(other.id, MODEL)).toBe(0);
  });

  it('a reply leaves its user’s count however it ends: failed, stopped before a node took it, or ended by the reaper', async () => {
    const u = await newUser(stack, 'fq-ends');
    const failing = streamId('f');
    const stopped = streamId('s');
    const failedReader = (await ask(u, failing)).reading;
    const stoppedReader = (await ask(u, stopped)).reading;
    expect(await fair.open(u.id, MODEL)).toBe(2);
    expect(await priorityOf(stopped)).toBe(2);

    // Stopped while it waits: the node that takes it ends it at once, with nothing generated.
    await stack.http.post(`/api/inference/stream/${stopped}/stop`).set(u.auth).expect(200);
    const job = (await node.claim(2))!;
    expect(job.job_id).toBe(failing);
    expect((await node.send(failing, [{ type: 'error', message: 'out of memory' }])).status).toBe(200);
    expect((await failedReader).at(-1)!.data).toMatchObject({ type: 'error' });
    expect(await node.claim(1)).toBeNull();
    expect((await stoppedReader).at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    expect(await taskOf(stack, stopped)).toMatchObject({ status: 'completed', completion_tokens: 0 });
    expect(await fair.open(u.id, MODEL)).toBe(0);
    expect(await load(u)).toEqual({ waiting: 0, running: 0 });

    // Waiting when the only node serving the model goes away: the reaper ends both, and both leave the count.
    const orphans = [streamId('r'), streamId('r')];
    const orphanReaders = [(await ask(u, orphans[0]!)).reading, (await ask(u, orphans[1]!)).reading];
    expect(await fair.open(u.id, MODEL)).toBe(2);
    expect(await load(u)).toEqual({ waiting: 2, running: 0 });
    await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
    for (const events of await Promise.all(orphanReaders)) expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'MODEL_UNAVAILABLE' });
    expect(await fair.open(u.id, MODEL)).toBe(0);
    expect(await load(u)).toEqual({ waiting: 0, running: 0 });
  });

  it('an entry whose end was never reported (a crashed process) stops counting once past the reply timeout', async () => {
    const redis = stack.app.get<Redis>(REDIS);
    const key = `${stack.config.redis.prefix}:fair:${MODEL}:ghost-user`;
    await redis.zadd(key, Date.now() - 1, 'lost-stream', Date.now() + 60_000, 'live-stream');
    expect(await fair.open('ghost-user', MODEL)).toBe(1);
    expect(await fair.join('ghost-user', MODEL, 'next-stream')).toBe(2);
    await fair.leave('ghost-user', MODEL, 'live-stream');
    await fair.leave('ghost-user', MODEL, 'next-stream');
    expect(await fair.open('ghost-user', MODEL)).toBe(0);
  });
});
