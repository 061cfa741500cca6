import type Redis from 'ioredis';
import { TokenCounter } from '../../src/modules/catalog/token-counter';
import { TokenStream } from '../../src/modules/inference/streams';
import { REDIS } from '../../src/redis/redis.module';
import { NODE_CREDENTIAL_INVALID } from '../../src/auth/node-credential.guard';
import { NODE_EVENTS_BODY_MAX_BYTES } from '../../src/modules/nodes/node-job-events.service';
import { startStack, TestStack } from '../support/app';
import { ledgerCheckCli } from '../support/ledger-check';
import { modelsProof, ScriptedNode } from '../support/scripted-node';
import { newUser, walletUnits } from '../support/users';
import { readSse, replyText, startReply, taskOf } from '../support/worker';

/** Each test on a model of its own, so no job of one waits in another's queue. */
const MODELS = {
  honest: 'glob-tiny-chat',
  bad: 'llama-3.2-1b-instruct',
  flood: 'llama-3-8b-instruct',
  stop: 'llama-3.3-70b-instruct',
  revoke: 'llama-3-70b-instruct',
};
const PROMPT = 'Tell me about rivers';
let seq = 0;
const streamId = () => `s_${Date.now().toString(36)}_${++seq}`;
const line = (events: object[]) => `${JSON.stringify({ events })}\n`;
/** A line as the agent sends it: placed among the job's token events by `from`. */
const framed = (from: number, events: object[]) => `${JSON.stringify({ events, from })}\n`;
const tokens = (...texts: string[]) => texts.map((text) => ({ type: 'token', text }));
const done = { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 5 }, stop_reason: 'stop' };
type User = Awaited<ReturnType<typeof newUser>>;
const EVENTS_PER_SECOND = 200;

// Pairing a scripted node proves its model on the tiny model in a child process: slow on a loaded machine.
jest.setTimeout(90_000);

/**
 * A reply's events over one request (streamNodeJobEvents), from a scripted node: the same checks, caps and
 * settlement as one request per batch, with every line of a stranger's body answered, in order, by one line.
 */
describe('a node streaming a reply over one request', () => {
  let stack: TestStack;
  let owner: User;
  let counter: TokenCounter;

  const units = (u: User) => walletUnits(stack, u);
  const start = (u: User, id: string, modelId: string, maxTokens: number) =>
    startReply(stack, u.auth, { streamId: id, modelId, prompt: PROMPT, params: { max_tokens: maxTokens } }).then((res) => readSse(res));
  /** A scripted node of `model`'s, a new user's reply of at most `maxTokens` being read, and its job as the node claimed it. */
  async function claimedReply(model: string, userName: string, maxTokens: number) {
    const node = await ScriptedNode.pair(stack, owner, { models: [model], write: modelsProof });
    const u = await newUser(stack, userName);
    const id = streamId();
    const reading = start(u, id, model, maxTokens);
    const job = (await node.claim())!;
    return { node, u, id, reading, job };
  }
  const used = async (modelId: string, text: string) =>
    (await counter.countPrompt(modelId, [{ role: 'user', content: PROMPT }])) + (await counter.countText(modelId, text));

  beforeAll(async () => {
    stack = await startStack({
      // A node's events a second capped low enough for a test to pass it by replaying one line.
      env: { HEARTBEAT_SECONDS: '5', NODE_FIRST_TOKEN_SECONDS: '20', JOIN_TOKEN_RATE_LIMIT: '50', NODE_EVENTS_PER_SECOND: String(EVENTS_PER_SECOND) },
    });
    owner = await newUser(stack, 'stream-owner');
    counter = stack.app.get(TokenCounter);
  }, 60_000);
  afterAll(async () => {
    try {
      if (stack) expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
    } finally {
      await stack?.close();
    }
  }, 60_000);

  it('every line is answered in order, the text reaches the requester as sent, and the reply is charged by the platform’s count', async () => {
    const node = await ScriptedNode.pair(stack, owner, { models: [MODELS.honest], write: modelsProof });
    const u = await newUser(stack, 'stream-reader');
    const before = await units(u);
    const id = streamId();
    const reading = start(u, id, MODELS.honest, 64);
    const job = (await node.claim())!;
    const stream = await node.stream(job.job_id, line([{ type: 'token', text: 'Rivers' }]));
    expect(stream.status).toBe(200);
    expect(stream.contentType).toBe('application/x-ndjson');
    expect(await stream.next()).toEqual({ stop: false });
    expect(
      await stream.send([
        { type: 'token', text: ' run' },
        { type: 'token', text: ' to the sea' },
      ]),
    ).toEqual({ stop: false });
    // A line may arrive in pieces: it is read whole.
    const last = line([{ type: 'token', text: '.' }]);
    stream.write(last.slice(0, 9));
    await new Promise((r) => setTimeout(r, 50));
    stream.write(last.slice(9));
    expect(await stream.next()).toEqual({ stop: false });
    // The node reports a thousand tokens; the platform counts what it relayed.
    expect(await stream.send([{ type: 'done', usage: { prompt_tokens: 9, completion_tokens: 1000 }, stop_reason: 'stop' }])).toEqual({ stop: false });
    expect(await stream.next()).toBeNull();
    stream.close();

    const events = await reading;
    const text = 'Rivers run to the sea.';
    expect(replyText(events)).toBe(text);
    const total = await used(MODELS.honest, text);
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', usage: { total_tokens: total } });
    const task = await taskOf(stack, id);
    expect(task).toMatchObject({ status: 'completed', reported_completion_tokens: 1000 });
    expect(Number(task.charged_units)).toBe(total * Number(task.price_units));
    const after = await units(u);
    expect(before.balance - after.balance).toBe(total * Number(task.price_units));
    expect(after.held).toBe(0);
  });

  it('lines placed by `from` go without waiting for answers: only the last is answered, with what was taken; a batch sent again is taken once', async () => {
    const { node, id, reading, job } = await claimedReply(MODELS.honest, 'stream-framed', 64);
    const stream = await node.stream(job.job_id, framed(0, tokens('Rivers')));
    stream.write(framed(1, tokens(' run')));
    stream.write(framed(2, tokens(' to', ' the')));
    // Sent again after a break the node took for a loss: all taken before, nothing goes on twice.
    stream.write(framed(1, tokens(' run', ' to', ' the')));
    // Half taken before: only its new part goes on.
    stream.write(framed(3, tokens(' the', ' sea')));
    stream.write(framed(5, [done]));
    expect(await stream.next()).toEqual({ stop: false, taken: 5 });
    expect(await stream.next()).toBeNull();
    stream.close();
    const events = await reading;
    const text = 'Rivers run to the sea';
    expect(replyText(events)).toBe(text);
    const task = await taskOf(stack, id);
    expect(Number(task.charged_units)).toBe((await used(MODELS.honest, text)) * Number(task.price_units));
  });

  it('a batch that would leave a gap is refused 409 and the job goes on; by calls, a batch sent twice is taken once', async () => {
    const { node, reading, job } = await claimedReply(MODELS.honest, 'calls-framed', 64);
    const gap = await node.send(job.job_id, tokens('skipped ahead'), 2);
    expect(gap.status).toBe(409);
    expect(gap.body).toMatchObject({ message: `Job ${job.job_id}: this batch starts at token event 2, but the platform has taken 0` });
    expect((await node.send(job.job_id, tokens('Once'), 0)).body).toEqual({ stop: false, taken: 1 });
    expect((await node.send(job.job_id, tokens('Once'), 0)).body).toEqual({ stop: false, taken: 1 });
    // In a stream too: refused with its Error line, which ends the answer.
    const stream = await node.stream(job.job_id, framed(3, tokens('late')));
    expect(await stream.next()).toMatchObject({ statusCode: 409, message: expect.stringContaining('the platform has taken 1') });
    expect(await stream.next()).toBeNull();
    stream.close();
    expect((await node.send(job.job_id, [...tokens(' only'), done], 1)).body).toEqual({ stop: false, taken: 2 });
    expect(replyText(await reading)).toBe('Once only');
  });

  it('a line that is not JSON, or not a NodeJobEvents object, is answered 400 and ends the stream; the job itself goes on', async () => {
    const { node, id, reading, job } = await claimedReply(MODELS.bad, 'bad-lines', 16);

    const garbage = await node.stream(job.job_id, 'this is not json\n');
    expect(garbage.status).toBe(200);
    expect(await garbage.next()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('not JSON') });
    expect(await garbage.next()).toBeNull();
    garbage.close();

    for (const bad of [{ events: [{ type: 'token' }] }, { events: [] }, { events: [{ type: 'token', text: 'a\u0000b' }] }, { tokens: ['x'] }]) {
      const stream = await node.stream(job.job_id, `${JSON.stringify(bad)}\n`);
      expect(await stream.next()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('NodeJobEvents') });
      stream.close();
    }
    // A done event before the end of its line: refused as a whole call would be.
    const early = await node.stream(
      job.job_id,
      line([
        { type: 'error', message: 'x' },
        { type: 'token', text: 'y' },
      ]),
    );
    expect(await early.next()).toMatchObject({ statusCode: 400 });
    early.close();

    // Nothing of it reached the requester; the job is still the node's, and ends normally.
    const stream = await node.stream(job.job_id, line([{ type: 'token', text: 'Fine' }]));
    expect(await stream.next()).toEqual({ stop: false });
    expect(await stream.send([{ type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop' }])).toEqual({ stop: false });
    stream.close();
    const events = await reading;
    expect(replyText(events)).toBe('Fine');
    expect(await taskOf(stack, id)).toMatchObject({ status: 'completed' });
  });

  it('another node’s job is refused 403 before the stream opens, a flood answered 413 at the job’s byte cap with nothing charged, a replay after the end 409', async () => {
    const flooder = await ScriptedNode.pair(stack, owner, { models: [MODELS.flood], write: modelsProof });
    const stranger = await ScriptedNode.pair(stack, owner, { models: [MODELS.honest], write: modelsProof });
    const u = await newUser(stack, 'stream-flooded');
    const before = await units(u);
    const id = streamId();
    const reading = start(u, id, MODELS.flood, 16);
    const job = (await flooder.claim())!;

    // Refused before the stream opens.
    const theft = await stranger.stream(job.job_id, line([{ type: 'token', text: 'mine now' }]));
    expect(theft.status).toBe(403);
    expect(await theft.next()).toEqual({ statusCode: 403, error: 'Forbidden', message: `This node does not hold job ${job.job_id}` });
    theft.close();

    const stream = await flooder.stream(job.job_id, line([{ type: 'token', text: 'y'.repeat(60_000) }]));
    let answer = await stream.next();
    let sent = 0;
    while (answer && answer.stop === false && sent < 10 * job.max_bytes) {
      sent += 60_000;
      answer = await stream.send([{ type: 'token', text: 'y'.repeat(60_000) }]);
    }
    expect(answer).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    expect(sent).toBeLessThanOrEqual(job.max_bytes);
    expect(await stream.next()).toBeNull();
    stream.close();
    const events = await reading;
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
    expect(await units(u)).toEqual(before);

    const replay = await flooder.stream(job.job_id, line([{ type: 'token', text: 'again' }]));
    expect(replay.status).toBe(409);
    expect(await replay.next()).toEqual({ statusCode: 409, error: 'Conflict', message: `Job ${job.job_id} has already ended` });
    replay.close();
  });

  it('a line replayed over and over counts towards the node’s events a second: the job ends as failed at the cap (413), nobody charged', async () => {
    const { node, u, id, reading, job } = await claimedReply(MODELS.flood, 'replayed-to', 16);
    const before = await units(u);
    const stream = await node.stream(job.job_id, framed(0, tokens('Once')));
    // Each taken before, so none adds to the reply: only to what the node sent.
    for (let i = 0; i < 3 * EVENTS_PER_SECOND; i++) stream.write(framed(0, tokens('Once')));
    expect(await stream.next()).toMatchObject({
      statusCode: 413,
      message: expect.stringContaining(`more than ${EVENTS_PER_SECOND} token events in a second`),
    });
    expect(await stream.next()).toBeNull();
    stream.close();
    const events = await reading;
    expect(replyText(events)).toBe('Once');
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', code: 'WORKER_FAILED' });
    expect(await taskOf(stack, id)).toMatchObject({ status: 'failed', charged_units: '0' });
    // Its hold (taken when the reply started, before `before`) is released, and nothing was spent.
    expect(await units(u)).toEqual({ balance: before.balance, held: 0 });
  });

  it('a line that never ends is cut at the body’s limit (413), without the API holding more of it', async () => {
    const { node, reading, job } = await claimedReply(MODELS.bad, 'endless-line', 16);
    const stream = await node.stream(job.job_id, `{"events":[{"type":"token","text":"`);
    const mib = 'z'.repeat(1024 * 1024);
    for (let i = 0; i <= NODE_EVENTS_BODY_MAX_BYTES / mib.length; i++) stream.write(mib);
    expect(await stream.next()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    stream.close();
    // The job is untouched: nothing was relayed, and the node may still answer it.
    expect(
      (
        await node.send(job.job_id, [
          { type: 'token', text: 'ok' },
          { type: 'done', usage: { prompt_tokens: 1, completion_tokens: 1 }, stop_reason: 'stop' },
        ])
      ).status,
    ).toBe(200);
    expect(replyText(await reading)).toBe('ok');
    expect((await stack.http.get('/api/health')).status).toBe(200);
  });

  it('a reply its requester stops is answered stop on the next line, and settles at the node’s done for what was relayed', async () => {
    const { node, u, id, reading, job } = await claimedReply(MODELS.stop, 'stream-stopper', 64);
    const stream = await node.stream(job.job_id, line([{ type: 'token', text: 'Before' }]));
    expect(await stream.next()).toEqual({ stop: false });
    await stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
    const events = await reading;
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    expect(await stream.send([{ type: 'token', text: ' after' }])).toEqual({ stop: true });
    // Its done line is taken (the reply stays stopped), and ends the stream.
    expect(await stream.send([{ type: 'done', usage: { prompt_tokens: 1, completion_tokens: 2 }, stop_reason: 'abort' }])).toEqual({ stop: true });
    expect(await stream.next()).toBeNull();
    stream.close();
    expect(replyText(events)).toBe('Before');
    const task = await taskOf(stack, id);
    expect(Number(task.charged_units)).toBe((await used(MODELS.stop, 'Before')) * Number(task.price_units));
  });

  it('lines placed by `from`: the first line after a stop is answered stop at once, the next only at the done', async () => {
    const { node, u, id, reading, job } = await claimedReply(MODELS.stop, 'framed-stopper', 64);
    const stream = await node.stream(job.job_id, framed(0, tokens('Before')));
    // Not answered: wait until it went on, as the requester sees it.
    const redis = stack.app.get<Redis>(REDIS);
    const relayed = async () =>
      (await redis.xrange(TokenStream.key(stack.config.redis.prefix, id), '-', '+')).some(([, f]) => f[1]!.includes('Before'));
    for (const until = Date.now() + 10_000; !(await relayed());) {
      if (Date.now() > until) throw new Error('the line was not relayed');
      await new Promise((r) => setTimeout(r, 20));
    }
    await stack.http.post(`/api/inference/stream/${id}/stop`).set(u.auth).expect(200);
    const events = await reading;
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    stream.write(framed(1, tokens(' after')));
    expect(await stream.next()).toEqual({ stop: true });
    stream.write(framed(2, tokens(' and more')));
    stream.write(framed(3, [{ type: 'done', usage: { prompt_tokens: 1, completion_tokens: 3 }, stop_reason: 'abort' }]));
    expect(await stream.next()).toEqual({ stop: true });
    expect(await stream.next()).toBeNull();
    stream.close();
    expect(replyText(events)).toBe('Before');
  });

  it('a node revoked while it streams is answered 401 within a second, and a stream without a credential never opens', async () => {
    const { node, id, reading, job } = await claimedReply(MODELS.revoke, 'stream-revoked', 64);
    const stream = await node.stream(job.job_id, line([{ type: 'token', text: 'Hello' }]));
    expect(await stream.next()).toEqual({ stop: false });
    await stack.http.delete(`/api/nodes/${node.id}`).set(owner.auth).expect(204);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await stream.send([{ type: 'token', text: ' again' }])).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: NODE_CREDENTIAL_INVALID,
    });
    expect(await stream.next()).toBeNull();
    stream.close();
    await reading;

    const anonymous = await ScriptedNode.prototype.stream.call(
      { stack, auth: { 'X-Forwarded-For': '10.9.9.9' } } as unknown as ScriptedNode,
      id,
      line([]),
    );
    expect(anonymous.status).toBe(401);
    expect(await anonymous.next()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    anonymous.close();
  });
});
