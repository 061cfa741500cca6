import { Logger } from '@nestjs/common';
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { inferenceQueue } from '../../src/jobs/jobs';
import { JobsService } from '../../src/jobs/jobs.service';
import { ReplyReaper } from '../../src/modules/inference/reaper.service';
import { StreamHub } from '../../src/modules/inference/stream-hub';
import { TokenStream } from '../../src/modules/inference/streams';
import { TasksRepository } from '../../src/modules/inference/tasks.repository';
import { stuckTasks } from '../../src/modules/inference/tasks.service';
import { LedgerService } from '../../src/modules/wallet/ledger.service';
import { REDIS } from '../../src/redis/redis.module';
import { expectSpecResponse } from '../support/contract';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, taskOf, WorkerProcess } from '../support/worker';
import { startStack, TestStack } from '../support/app';

const MODEL = 'glob-tiny-chat';
let seq = 0;
const streamId = () => `r_${Date.now().toString(36)}_${++seq}`;

/** ledger:check's own checks: balances, holds, bonus parts, and nothing open past the longest possible reply. */
async function ledgerProblems(stack: TestStack): Promise<string[]> {
  return [
    ...(await stack.app.get(LedgerService).reconcile()),
    ...(await stuckTasks(stack.app.get(TasksRepository), stack.config.inference.replyTimeoutSeconds)),
  ];
}

function helpers(stack: () => TestStack) {
  return {
    start: (auth: Record<string, string>, body: object) => startReply(stack(), auth, body),
    read: (auth: Record<string, string>, id: string, signal?: AbortSignal) =>
      fetch(`${stack().url}/api/inference/stream/${id}`, { headers: auth, signal }),
    balance: async (u: { id: string; auth: Record<string, string> }) =>
      (await stack().http.get(`/api/wallet/${u.id}/balance`).set(u.auth).expect(200)).body as { balance: number; pending_balance: number },
    task: (id: string) => taskOf(stack(), id),
    /** A task as the API writes it, with a real hold, for the reaper and ledger:check to find. */
    openTask: async (userId: string, opts: { status: 'queued' | 'running'; ageSeconds?: number; hold?: number }) => {
      const id = streamId();
      const hold = opts.hold ? await stack().app.get(LedgerService).reserve(userId, opts.hold, 'AI reply (fixture)', id) : null;
      await stack().db.query(
        `INSERT INTO inference_tasks (id, user_id, model_id, status, stream_id, request_hash, hold_id, max_tokens, price_units, created_at)
         VALUES ($1, $2, $3, $4, $5, 'fixture', $6, 100, 1, now() - make_interval(secs => $7))`,
        [randomUUID(), userId, MODEL, opts.status, id, hold?.holdId ?? null, opts.ageSeconds ?? 0],
      );
      if (hold && opts.ageSeconds)
        await stack().db.query(`UPDATE ledger_transactions SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [
          hold.holdId,
          opts.ageSeconds,
        ]);
      return id;
    },
  };
}

describe('every reply ends, every hold ends', () => {
  let stack: TestStack;
  const h = helpers(() => stack);
  beforeAll(async () => {
    // Nodes live for 3 s after their last heartbeat; the reaper looks every 0.5 s; a silent reader checks after 4 s.
    stack = await startStack({ env: { HEARTBEAT_SECONDS: '1', REAPER_INTERVAL_MS: '500', JOB_LOCK_MS: '4000', REPLY_TIMEOUT_SECONDS: '120' } });
  }, 60_000);
  afterAll(async () => {
    expect(await ledgerProblems(stack)).toEqual([]);
    await stack.close();
  }, 60_000);

  it('the only worker killed mid-reply: the reader gets WORKER_FAILED, nothing is charged, and new replies get 503', async () => {
    const victim = await startWorker(stack, { HEARTBEAT_SECONDS: '1' }, 'worker-doomed');
    const u = await newUser(stack, 'stranded');
    const id = streamId();
    const res = await h.start(u.auth, { streamId: id, modelId: MODEL, prompt: 'A long answer please', params: { max_tokens: 2000, temperature: 0 } });
    const started = Date.now();
    const events = await readSse(res, (e) => {
      if (e.data.type === 'token' && victim.child.exitCode === null && victim.child.signalCode === null) victim.child.kill('SIGKILL');
    });
    const last = events.at(-1)!;
    expect(last.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    // Within the node's live window, the reaper's interval and the job lock: never the old 120 s silence.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await h.balance(u)).toEqual(expect.objectContaining({ balance: 1000, pending_balance: 0 }));
    expect(await h.task(id)).toMatchObject({ status: 'failed', charged_units: '0' });
    // Replaying the finished stream returns at once, with the same end.
    const replay = await readSse(await h.read(u.auth, id));
    expect(replay.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });

    const refused = await stack.http
      .post('/api/inference/stream/start')
      .set(u.auth)
      .send({ streamId: streamId(), modelId: MODEL, prompt: 'Anyone there?' })
      .expect(503);
    expectSpecResponse(refused, 'startStream');
    expect(await h.balance(u)).toEqual(expect.objectContaining({ pending_balance: 0 }));
    expect(await ledgerProblems(stack)).toEqual([]);
  }, 60_000);

  describe('with a live worker', () => {
    let worker: WorkerProcess;
    beforeAll(async () => {
      worker = await startWorker(stack, { HEARTBEAT_SECONDS: '1' }, 'worker-steady');
    }, 60_000);
    afterAll(() => worker.stop());

    it('a stop that arrives before its start is remembered: the reply stops at once and costs at most the prompt', async () => {
      const u = await newUser(stack, 'hasty');
      const id = streamId();
      const stop = await stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
      expectSpecResponse(stop, 'stopStream');
      expect(stop.body).toEqual({ stopped: true, stream_id: id });
      const events = await readSse(
        await h.start(u.auth, { streamId: id, modelId: MODEL, prompt: 'Tell me everything', params: { max_tokens: 2000 } }),
      );
      expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
      expect(events.at(-1)!.data.usage!.completion_tokens).toBeLessThanOrEqual(1);
      // Someone else's early stop for the same id does nothing to it.
      const other = await newUser(stack, 'meddler');
      const id2 = streamId();
      await stack.http.post(`/api/inference/stream/${id2}/stop`).set(other.auth).expect(200);
      const own = await readSse(await h.start(u.auth, { streamId: id2, modelId: MODEL, prompt: 'Hello', params: { max_tokens: 30 } }));
      expect(own.at(-1)!.data.type).toBe('done');
      expect(own.at(-1)!.data.stop_reason).not.toBe('abort');
    }, 30_000);

    it('five identical starts at once with a conversation: one job, one user message, one reply', async () => {
      const u = await newUser(stack, 'impatient');
      const conv = await stack.http.post('/api/chat/conversations').set(u.auth).send({ title: 'Once', model_id: MODEL }).expect(201);
      const body = {
        streamId: streamId(),
        modelId: MODEL,
        prompt: 'Say something',
        params: { max_tokens: 20, temperature: 0 },
        conversation_id: conv.body.conversation.id,
      };
      const all = await Promise.all(Array.from({ length: 5 }, async () => readSse(await h.start(u.auth, body))));
      for (const events of all) expect(events.at(-1)!.data.type).toBe('done');
      const saved = await stack.http.get(`/api/chat/conversations/${conv.body.conversation.id}`).set(u.auth).expect(200);
      expect(saved.body.conversation.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
      const spent = (await stack.http.get(`/api/users/${u.id}/transactions`).set(u.auth).expect(200)).body.transactions.filter(
        (t: { type: string }) => t.type === 'spending',
      );
      expect(spent).toHaveLength(1);
    }, 30_000);

    it('caps the streams one user has open (429 with Retry-After); closing one frees its slot', async () => {
      const u = await newUser(stack, 'greedy');
      const id = await h.openTask(u.id, { status: 'running' });
      await stack.db.query(`UPDATE inference_tasks SET node_id = $2 WHERE stream_id = $1`, [id, worker.nodeId]);
      const aborts = Array.from({ length: 20 }, () => new AbortController());
      const open = await Promise.all(aborts.map((a) => h.read(u.auth, id, a.signal)));
      expect(open.map((r) => r.status)).toEqual(Array(20).fill(200));
      const over = await stack.http.get(`/api/inference/stream/${id}`).set(u.auth).expect(429);
      expectSpecResponse(over, 'getStream');
      expect(over.body.message).toBe('Too many open streams. Close one or try again in 5 seconds.');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      aborts[0]!.abort();
      let again: Response | undefined;
      for (let i = 0; i < 50 && again?.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        again?.body?.cancel().catch(() => undefined);
        again = await h.read(u.auth, id);
      }
      expect(again!.status).toBe(200);
      // End the fixture's stream for every reader.
      const stream = new TokenStream(stack.app.get<Redis>(REDIS), TokenStream.key(stack.config.redis.prefix, id));
      await stream.append({ type: 'done', success: true, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, stop_reason: 'stop' });
      await Promise.all([again!, ...open.slice(1)].map((r) => readSse(r)));
      await stack.db.query(`UPDATE inference_tasks SET status = 'completed' WHERE stream_id = $1`, [id]);
    }, 30_000);
  });

  it('a reply past its lifetime is ended with TIMEOUT and its hold released; ledger:check reports it until then', async () => {
    const u = await newUser(stack, 'forgotten');
    const id = await h.openTask(u.id, { status: 'running', ageSeconds: 3600, hold: 50_000 });
    const before = await ledgerProblems(stack);
    expect(before.some((p) => p.startsWith('hold ') && p.includes(id))).toBe(true);
    expect(before.some((p) => p.startsWith('task ') && p.includes(id))).toBe(true);
    expect(await h.balance(u)).toEqual(expect.objectContaining({ pending_balance: 50 }));

    await stack.app.get(ReplyReaper).checkStream(id);
    expect(await h.task(id)).toMatchObject({ status: 'failed' });
    expect(await h.balance(u)).toEqual(expect.objectContaining({ balance: 1000, pending_balance: 0 }));
    const events = await readSse(await h.read(u.auth, id));
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'TIMEOUT' });
    expect(await ledgerProblems(stack)).toEqual([]);
  }, 30_000);
});

describe('a job that stalls past its limit', () => {
  let stack: TestStack;
  const h = helpers(() => stack);
  beforeAll(async () => {
    // The killed node still looks live (long heartbeat window): only the job's own failure can end the reply.
    stack = await startStack({ env: { HEARTBEAT_SECONDS: '60', REAPER_INTERVAL_MS: '500', JOB_LOCK_MS: '4000' } });
  }, 60_000);
  afterAll(async () => {
    expect(await ledgerProblems(stack)).toEqual([]);
    await stack.close();
  }, 60_000);

  it('is failed by BullMQ and never processed again; the reaper ends the reply and releases its hold', async () => {
    const victim = await startWorker(stack, {}, 'worker-stalled');
    const u = await newUser(stack, 'stalled');
    const id = streamId();
    const res = await h.start(u.auth, { streamId: id, modelId: MODEL, prompt: 'A long answer please', params: { max_tokens: 2000, temperature: 0 } });
    // The killed worker's job stays active with a lock nobody renews. A worker whose stall check allows no more
    // stalls (as after the second one) then fails it: "job stalled more than allowable limit".
    let checker: Worker<unknown, void> | undefined;
    const failures: string[] = [];
    const connection = new Redis(stack.config.redis.url, { maxRetriesPerRequest: null });
    try {
      const events = await readSse(res, (e) => {
        if (e.data.type === 'token' && !checker) {
          victim.child.kill('SIGKILL');
          checker = new Worker<unknown, void>(
            inferenceQueue(MODEL),
            async (): Promise<void> => {
              throw new Error('this worker only runs the stall check');
            },
            { connection, prefix: `${stack.config.redis.prefix}:bull`, maxStalledCount: 0, stalledInterval: 500 },
          );
          checker.on('failed', (job, err) => failures.push(`${job?.id}: ${err.message}`));
        }
      });
      expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
      expect(failures).toEqual([`${id}: job stalled more than allowable limit`]);
      // The reaper took the failed job off the queue.
      expect(await stack.app.get(JobsService).state(inferenceQueue(MODEL), id)).toBe('missing');
      expect(await h.task(id)).toMatchObject({ status: 'failed', charged_units: '0' });
      expect(await h.balance(u)).toEqual(expect.objectContaining({ balance: 1000, pending_balance: 0 }));
      // GET answers at once with the end, never a hang.
      const t0 = Date.now();
      const replay = await readSse(await h.read(u.auth, id));
      expect(replay.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      await checker?.close();
      await connection.quit();
    }
  }, 60_000);
});

describe('1,000 readers share one Redis connection', () => {
  let stack: TestStack;
  const h = helpers(() => stack);
  beforeAll(async () => {
    stack = await startStack({ env: { STREAMS_PER_USER: '2000', JOB_LOCK_MS: '600000', REAPER_INTERVAL_MS: '600000' } });
  }, 60_000);
  afterAll(() => stack.close(), 60_000);

  it('holds the Redis client count flat while 1,000 readers wait, then delivers the end to every one', async () => {
    const u = await newUser(stack, 'crowd');
    const id = await h.openTask(u.id, { status: 'running' });
    const admin = new Redis(stack.config.redis.url);
    const ours = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((line) => line.includes(` name=${stack.config.redis.prefix} `)).length;
    try {
      const before = await ours();
      // Opened 100 at a time (each batch answered before the next), so a loaded machine's listen backlog never
      // overflows; all 1,000 stay open together.
      const readers: Response[] = [];
      for (let batch = 0; batch < 10; batch++) readers.push(...(await Promise.all(Array.from({ length: 100 }, () => h.read(u.auth, id)))));
      expect(readers.every((r) => r.status === 200)).toBe(true);
      const hub = stack.app.get(StreamHub);
      for (let i = 0; i < 100 && hub.size < 1000; i++) await new Promise((r) => setTimeout(r, 100));
      expect(hub.size).toBe(1000);
      const during = await ours();
      // One shared blocking connection at most, not one per reader.
      expect(during - before).toBeLessThanOrEqual(1);

      const stream = new TokenStream(admin, TokenStream.key(stack.config.redis.prefix, id));
      await stream.append({ type: 'token', text: 'hello' });
      await stream.append({ type: 'done', success: true, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, stop_reason: 'stop' });
      const all = await Promise.all(readers.map((r) => readSse(r)));
      expect(all.every((events) => events.map((e) => e.data.type).join() === 'token,done')).toBe(true);
    } finally {
      await stack.db.query(`UPDATE inference_tasks SET status = 'completed' WHERE stream_id = $1`, [id]);
      await admin.quit();
    }
  }, 120_000);
});

describe('a task the reaper cannot check', () => {
  let stack: TestStack;
  const h = helpers(() => stack);
  beforeAll(async () => {
    // No periodic sweep during the test: the test runs the one sweep it looks at.
    stack = await startStack({ env: { REAPER_INTERVAL_MS: '600000', JOB_LOCK_MS: '600000' } });
  }, 60_000);
  afterAll(async () => {
    expect(await ledgerProblems(stack)).toEqual([]);
    await stack.close();
  }, 60_000);

  it('is logged with its stream id, and the same sweep still ends the tasks after it', async () => {
    const u = await newUser(stack, 'unlucky');
    // Both past their lifetime; the broken one is older, so the sweep meets it first.
    const broken = await h.openTask(u.id, { status: 'running', ageSeconds: 3601, hold: 50_000 });
    const expired = await h.openTask(u.id, { status: 'running', ageSeconds: 3600, hold: 50_000 });
    const redis = stack.app.get<Redis>(REDIS);
    // A string where its token stream should be: reading the partial reply fails with WRONGTYPE.
    const brokenKey = TokenStream.key(stack.config.redis.prefix, broken);
    await redis.set(brokenKey, 'not a stream');
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      expect(await stack.app.get(ReplyReaper).sweep()).toBe(1);
      expect(errors.mock.calls.some(([message]) => String(message).includes(broken) && String(message).includes('WRONGTYPE'))).toBe(true);
    } finally {
      errors.mockRestore();
    }
    expect(await h.task(expired)).toMatchObject({ status: 'failed' });
    expect(await h.task(broken)).toMatchObject({ status: 'running' });
    expect(await h.balance(u)).toEqual(expect.objectContaining({ pending_balance: 50 }));

    // Once its stream is readable again, it is ended like any other.
    await redis.del(brokenKey);
    expect(await stack.app.get(ReplyReaper).checkStream(broken)).toBe(true);
    expect(await h.task(broken)).toMatchObject({ status: 'failed' });
    expect(await h.balance(u)).toEqual(expect.objectContaining({ balance: 1000, pending_balance: 0 }));
  }, 30_000);
});
