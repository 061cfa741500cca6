import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCommitment, type Step } from '@glob/engine/commitment';
import { buildVocabulary } from '../../scripts/tiny-model/vocabulary';
import { FAILED_PROOF, FAILED_SPOT_CHECK } from '../../src/modules/trust/spot-checks.service';
import { startStack, type TestStack } from '../support/app';
import { closeChecked } from '../support/ledger-check';
import { committedReply, modelsEmbeddings, modelsNumbersFor, modelsProof, ScriptedNode, type NodeJob } from '../support/scripted-node';
import { InferenceService } from '../../src/modules/inference/inference.service';
import { StoppedRepliesService } from '../../src/modules/trust/stopped-replies.service';
import type { StreamEvent } from '../../src/modules/inference/streams';
import { toBase64 } from '../../src/common/vectors';
import { newUser } from '../support/users';
import { readSse, startReply, startWorker, type WorkerProcess } from '../support/worker';

const MODEL = 'glob-tiny-chat';
/** The tiny model's end-of-generation token (ChatML's end of turn). */
const EOG = buildVocabulary(0).eotId;
let seq = 0;
type User = Awaited<ReturnType<typeof newUser>>;
interface Answer {
  text: string;
  steps: Step[] | null;
  stopReason?: string;
}

/**
 * Verification by recomputation against scripted nodes that speak the public node API: each attack a stranger's
 * modified agent could make (blank and empty replies, an honest prefix with injected text, made-up numbers, no
 * commitment, a false `length`, honest then lying, made-up text stopped by its requester) ends with the node suspended (its owner cannot resume it), its
 * rewards withheld and its requesters whole. The attackers are given the model's true numbers for their own tokens
 * (what one pass over their text computes), so only the recomputation's sampling checks can catch them.
 */
describe('verified work: a node that computes nothing, or only part of a reply, earns nothing and costs nobody anything', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let owner: User;
  /** A second owner for the later nodes: one owner's join tokens are rate limited. */
  let prover: User;
  /** The owner of the nodes whose replies are stopped. */
  let stopper: User;
  let requester: User;

  type Funds = { balance: number; bonus_balance: number; total_spent: number };
  const funds = async (): Promise<Funds> => {
    const w = (await stack.http.get(`/api/wallet/${requester.id}`).set(requester.auth).expect(200)).body as Funds;
    return { balance: w.balance, bonus_balance: w.bonus_balance, total_spent: w.total_spent };
  };

  /** One reply asked by the requester and served by `node` with what `answer` writes for its job. */
  const serve = async (node: ScriptedNode, answer: (job: NodeJob) => Promise<Answer>, prompt = 'Tell me about the river'): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      const streamId = `s_ver_${Date.now().toString(36)}_${++seq}`;
      const reading = startReply(stack, requester.auth, { streamId, modelId: MODEL, prompt, params: { max_tokens: 32, temperature: 0.8 } }).then(
        (res) => readSse(res),
      );
      const job = (await node.claim())!;
      expect(job).not.toBeNull();
      const a = await answer(job);
      const res = await node.finishCommitted(job.job_id, a.text, a.steps, a.stopReason ?? 'stop');
      // On a busy machine a reply can end as its node "stopped" while the scripted node computes its answer in engine
      // children, silent for seconds (nothing was charged: the ledger check at the end says so); it is asked again.
      if (res.status === 409 && attempt < 3) {
        await reading;
        continue;
      }
      expect(res.status).toBe(200);
      expect((await reading).at(-1)!.data).toMatchObject({ type: 'done' });
      return streamId;
    }
  };

  const verdicts = async (nodeId: string, count: number) => {
    for (const deadline = Date.now() + 60_000; ;) {
      const rows = (await stack.db.query(`SELECT status FROM spot_checks WHERE node_id = $1 ORDER BY created_at`, [nodeId])) as Array<{
        status: string;
      }>;
      if (rows.length >= count && rows.every((r) => r.status !== 'pending')) return rows.map((r) => r.status);
      if (Date.now() > deadline) throw new Error(`checks of ${nodeId} not judged: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** Why the node's model proof failed, once one has. */
  const proofFailure = async (nodeId: string) => {
    for (const deadline = Date.now() + 30_000; ;) {
      const rows = (await stack.db.query(`SELECT failure FROM model_proofs WHERE node_id = $1 AND status = 'failed'`, [nodeId])) as Array<{
        failure: string;
      }>;
      if (rows.length) return rows[0]!.failure;
      if (Date.now() > deadline) throw new Error(`no proof of ${nodeId} failed`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** The node ends suspended, unable to work or be resumed, with nothing pending; its requester has what it had. */
  const expectCaught = async (node: ScriptedNode, before: Funds, by: User = owner) => {
    const view = (await stack.http.get('/api/nodes').set(by.auth)).body.nodes.find((n: { id: string }) => n.id === node.id);
    expect(view).toMatchObject({ status: 'paused', paused_reason: FAILED_SPOT_CHECK, pending: 0, proven_models: [] });
    const resume = await stack.http.patch(`/api/nodes/${node.id}`).set(by.auth).send({ paused: false });
    expect(resume.status).toBe(409);
    expect(resume.body.message).toMatch(/suspended/);
    expect(await node.claim(1)).toBeNull();
    const unpaid = (await stack.db.query(
      `SELECT count(*)::int AS n FROM node_rewards WHERE node_id = $1 AND withheld_at IS NULL AND paid_at IS NULL`,
      [node.id],
    )) as Array<{ n: number }>;
    expect(unpaid[0]!.n).toBe(0);
    expect(await funds()).toEqual(before);
    // Its owner sees the failure, and never how many replies passed (that would tell when checks happen).
    const earnings = await stack.http.get(`/api/nodes/earnings/${node.id}`).set(by.auth).expect(200);
    expect(earnings.body.checks).toEqual({ failed: 1 });
  };

  /** One attack: a fresh node (honest when challenged) serves one reply written by `answer`, and is caught. */
  const attack = async (answer: (job: NodeJob) => Promise<Answer>) => {
    const node = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof });
    const before = await funds();
    await serve(node, answer);
    expect(await verdicts(node.id, 1)).toEqual(['failed']);
    await expectCaught(node, before);
  };

  beforeAll(async () => {
    // The scripted nodes compute their answers in engine children after claiming, silent meanwhile, which a busy CI
    // machine can make take longer than a real node's first-token deadline, job lock and live window (three
    // heartbeats): all are lifted (deadlines and liveness are tested elsewhere).
    stack = await startStack({
      env: {
        SPOT_CHECK_FIRST: '2',
        SPOT_CHECK_PERCENT: '50',
        HEARTBEAT_SECONDS: '60',
        NODE_FIRST_TOKEN_SECONDS: '180',
        JOB_LOCK_MS: '180000',
        NODE_STOP_COMMIT_SECONDS: '5',
      },
    });
    // It verifies both the chat model's and the embedding model's work.
    worker = await startWorker(stack, { WORKER_VERIFY_ONLY: 'true', WORKER_MODELS: 'glob-tiny-chat,glob-tiny-embed' });
    owner = await newUser(stack, 'verified-owner');
    prover = await newUser(stack, 'verified-prover');
    stopper = await newUser(stack, 'verified-stopper');
    requester = await newUser(stack, 'verified-requester');
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await closeChecked(stack, await mkdtemp(join(tmpdir(), 'glob-verify-')));
  }, 60_000);

  it('a blank reply (a space, then the end) fails: the model would not write it', async () => {
    await attack(async (job) => {
      const blank = await modelsNumbersFor(job, [], [' ']);
      const { steps } = await modelsNumbersFor(job, [[...blank.tokens[0]!, EOG]]);
      return { text: ' ', steps: steps[0]! };
    });
  }, 90_000);

  it('an empty reply is verified like any other: ending at once is a claim the model does not make', async () => {
    await attack(async (job) => ({ text: '', steps: (await modelsNumbersFor(job, [[EOG]])).steps[0]! }));
  }, 90_000);

  it('the model’s own reply cut at 60 % with injected text fails at the first injected token', async () => {
    await attack(async (job) => {
      const honest = await committedReply(job);
      const kept = honest.steps.slice(0, Math.ceil(honest.steps.length * 0.6)).map((s) => s.token);
      const injected = await modelsNumbersFor(job, [], [' Log in at evil.example now.']);
      const tokens = [...kept, ...injected.tokens[0]!, EOG];
      const model = await modelsNumbersFor(job, [tokens]);
      return { text: model.texts[0]!, steps: model.steps[0]! };
    });
  }, 90_000);

  it('the model’s own text with made-up numbers (a node without the model) fails', async () => {
    await attack(async (job) => {
      const honest = await committedReply(job);
      return { text: honest.text, steps: honest.steps.map((s) => ({ token: s.token, logprob: -0.05, top: s.top.map(([id]) => [id, -0.05]) })) };
    });
  }, 90_000);

  it('a reply without a commitment fails', async () => {
    await attack(async (job) => ({ text: (await committedReply(job)).text, steps: null }));
  }, 90_000);

  /** A reply asked for by the requester, and `node`'s claim of it. */
  const replyTo = async (node: ScriptedNode) => {
    const streamId = `s_stop_${Date.now().toString(36)}_${++seq}`;
    const reading = startReply(stack, requester.auth, {
      streamId,
      modelId: MODEL,
      prompt: 'Tell me about the river',
      params: { max_tokens: 32, temperature: 0.8 },
    }).then((res) => readSse(res));
    return { streamId, reading, job: (await node.claim())! };
  };

  /**
   * A reply its requester stops after the node relayed `relayed`: the node is told to stop at its next call, then
   * sends its done event (`abort`) with `steps` as its commitment, or nothing at all when `steps` is undefined.
   */
  const stoppedReply = async (node: ScriptedNode, write: (job: NodeJob) => Promise<{ relayed: string; steps?: Step[] }>) => {
    const { streamId, reading, job } = await replyTo(node);
    const { relayed, steps } = await write(job);
    expect((await node.send(job.job_id, [{ type: 'token', text: relayed }])).body).toEqual({ stop: false });
    await stack.http.post(`/api/inference/stream/${streamId}/stop`).set(requester.auth).expect(200);
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    // What it sends after the stop is not relayed: it is told to stop, and its done event is taken for its commitment.
    expect((await node.send(job.job_id, [{ type: 'token', text: ' and more' }])).body).toEqual({ stop: true });
    if (steps) expect((await node.finishCommitted(job.job_id, '', steps, 'abort')).body).toEqual({ stop: true });
    return streamId;
  };

  it('a stopped reply is verified by the commitment its node sends after the stop: the model’s own passes, tokens past the stop included', async () => {
    const node = await ScriptedNode.pair(stack, stopper, { models: [MODEL], write: modelsProof });
    await stoppedReply(node, async (job) => {
      const honest = await committedReply(job);
      return { relayed: honest.text.slice(0, Math.ceil(honest.text.length / 2)), steps: honest.steps };
    });
    expect(await verdicts(node.id, 1)).toEqual(['passed']);
  }, 90_000);

  it('made-up text stopped by its requester fails by the node’s own commitment: suspended, and the requester gets the charge back', async () => {
    const node = await ScriptedNode.pair(stack, stopper, { models: [MODEL], write: modelsProof });
    const before = await funds();
    await stoppedReply(node, async (job) => {
      const lie = await modelsNumbersFor(job, [], [' Log in at evil.example now.']);
      const model = await modelsNumbersFor(job, [lie.tokens[0]!]);
      return { relayed: model.texts[0]!, steps: model.steps[0]! };
    });
    expect(await verdicts(node.id, 1)).toEqual(['failed']);
    await expectCaught(node, before, stopper);
  }, 90_000);

  it('a stop that crosses its node’s end: the commitment the node sent before the stopped reply was kept still checks it', async () => {
    const node = await ScriptedNode.pair(stack, stopper, { models: [MODEL], write: modelsProof });
    const { streamId, reading, job } = await replyTo(node);
    const honest = await committedReply(job);
    expect((await node.send(job.job_id, [{ type: 'token', text: honest.text.slice(0, 8) }])).body).toEqual({ stop: false });
    // The node's end lost the race to the stop (its settlement found the reply ended): what its end path then does,
    // before the stop's settlement keeps the stopped reply.
    await stack.app.get(StoppedRepliesService).endedAfterStop(job.job_id, node.id, encodeCommitment(honest.steps));
    await stack.http.post(`/api/inference/stream/${streamId}/stop`).set(requester.auth).expect(200);
    expect((await reading).at(-1)!.data).toMatchObject({ type: 'done', stop_reason: 'abort' });
    // Checked by that commitment (without it, it would fail as uncommitted once its commitment is overdue, 5 s here).
    expect(await verdicts(node.id, 1)).toEqual(['passed']);
  }, 90_000);

  it('a stopped reply whose node never commits to it in time fails as one without a commitment', async () => {
    const node = await ScriptedNode.pair(stack, stopper, { models: [MODEL], write: modelsProof });
    const before = await funds();
    await stoppedReply(node, async () => ({ relayed: ' Log in at evil.example now.' }));
    expect(await verdicts(node.id, 1)).toEqual(['failed']);
    await expectCaught(node, before, stopper);
  }, 90_000);

  it('a reply the model ended, claimed as cut at the cap (`length`), fails', async () => {
    await attack(async (job) => {
      // Sampled until the model ends its reply within the cap.
      for (let seed = 1; ; seed++) {
        const honest = await committedReply({ ...job, params: { ...job.params, seed } });
        if (honest.stopReason !== 'stop') continue;
        // The numbers are the model's own: only the false end can give it away.
        return { text: honest.text, steps: honest.steps.slice(0, -1), stopReason: 'length' };
      }
    });
  }, 120_000);

  it('honest through its probation, then lying: caught on a random reply, and every reply since its last payout is refunded', async () => {
    const node = await ScriptedNode.pair(stack, owner, { models: [MODEL], write: modelsProof });
    const before = await funds();
    const honest = async (job: NodeJob): Promise<Answer> => {
      const r = await committedReply(job);
      return { text: r.text, steps: r.steps, stopReason: r.stopReason };
    };
    await serve(node, honest);
    await serve(node, honest);
    expect(await verdicts(node.id, 2)).toEqual(['passed', 'passed']);
    // Past its probation only a random share is verified; it lies until one of them is.
    let lies = 0;
    for (; lies < 40;) {
      await serve(node, async (job) => {
        const blank = await modelsNumbersFor(job, [], [' Done.']);
        const tokens = [...blank.tokens[0]!, EOG];
        return { text: ' Done.', steps: (await modelsNumbersFor(job, [tokens])).steps[0]! };
      });
      lies++;
      const rows = await verdicts(node.id, 2);
      if (rows.includes('failed')) break;
    }
    expect(lies).toBeGreaterThanOrEqual(1);
    expect(lies).toBeLessThan(40);
    // Honest replies and unverified lies alike came back: the requester has exactly what it had.
    await expectCaught(node, before);
    const refunded = (await stack.db.query(
      `SELECT count(*)::int AS n FROM inference_tasks t WHERE t.node_id = $1
         AND EXISTS (SELECT 1 FROM ledger_transactions l WHERE l.type = 'refund' AND l.reference = t.id::text)`,
      [node.id],
    )) as Array<{ n: number }>;
    expect(refunded[0]!.n).toBe(2 + lies);

    // A fresh model proof brings it back, on probation: its next reply is verified again.
    await node.prove([MODEL]);
    const [back] = (await stack.db.query(`SELECT paused, suspended_at, spot_checks_passed FROM nodes WHERE id = $1`, [node.id])) as Array<{
      paused: boolean;
      suspended_at: Date | null;
      spot_checks_passed: number;
    }>;
    expect(back).toEqual({ paused: false, suspended_at: null, spot_checks_passed: 0 });
    const judged = (await verdicts(node.id, 3)).length;
    await serve(node, honest);
    expect((await verdicts(node.id, judged + 1)).slice(judged)).toEqual(['passed']);
  }, 240_000);

  it('embeddings: the model’s vectors pass; random vectors of the right size fail, and their requester gets the charge back', async () => {
    // The project's tiny embedding model: the verifying worker above has it loaded.
    const embedModel = 'glob-tiny-embed';
    const key = (await stack.http.post('/api/api-keys').set(requester.auth).send({ name: 'verified' }).expect(201)).body.key as string;
    const embedVia = async (node: ScriptedNode, vectorsOf: (input: string[]) => Promise<Float32Array[]>) => {
      const request = stack.http
        .post('/v1/embeddings')
        .set({ Authorization: `Bearer ${key}` })
        .send({ model: embedModel, input: ['the river', 'a city at night', 'tea'] });
      const answered = request.then((r) => r);
      const job = (await node.claim())!;
      expect(job).toMatchObject({ kind: 'embed' });
      const vectors = await vectorsOf(job.input!);
      const res = await stack.http
        .post(`/api/nodes/jobs/${job.job_id}/embeddings`)
        .set(node.auth)
        .send({ embeddings: vectors.map(toBase64) });
      expect(res.status).toBe(204);
      expect((await answered).status).toBe(200);
    };
    const honest = await ScriptedNode.pair(stack, owner, { models: [embedModel], write: modelsProof });
    await embedVia(honest, modelsEmbeddings);
    expect(await verdicts(honest.id, 1)).toEqual(['passed']);

    const liar = await ScriptedNode.pair(stack, owner, { models: [embedModel], write: modelsProof });
    const before = await funds();
    const size = (await modelsEmbeddings(['x']))[0]!.length;
    await embedVia(liar, async (input) => input.map(() => Float32Array.from({ length: size }, () => Math.random() - 0.5)));
    expect(await verdicts(liar.id, 1)).toEqual(['failed']);
    await expectCaught(liar, before);
  }, 120_000);

  it('made-up JSON under a schema of free strings, sent with the model’s numbers for its own tokens, fails inside its string', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const apiKeyId = (await stack.http.post('/api/api-keys').set(requester.auth).send({ name: 'json-verified' }).expect(201)).body.api_key
      .id as string;
    const node = await ScriptedNode.pair(stack, prover, { models: [MODEL], write: modelsProof });
    const before = await funds();
    const streamId = `s_ver_json_${Date.now().toString(36)}`;
    const started = stack.app
      .get(InferenceService)
      .start(requester.id, { streamId, modelId: MODEL, prompt: 'Answer as JSON', params: { max_tokens: 64, json_schema: schema } }, { apiKeyId });
    const job = (await node.claim())!;
    const lie = '{"answer": "Log in at evil.example now"}';
    const { tokens } = await modelsNumbersFor(job, [], [lie]);
    const { steps } = await modelsNumbersFor(job, [tokens[0]!]);
    expect((await node.finishCommitted(job.job_id, lie, steps[0]!, 'stop')).status).toBe(200);
    const events: StreamEvent[] = [];
    for await (const { event } of (await started).events(0)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    expect(await verdicts(node.id, 1)).toEqual(['failed']);
    const [check] = (await stack.db.query(`SELECT matched_tokens FROM spot_checks WHERE node_id = $1`, [node.id])) as Array<{
      matched_tokens: number;
    }>;
    // Its numbers were the model's: only the string's contents gave it away, after the JSON's opening.
    expect(check!.matched_tokens).toBeGreaterThan(2);
    await expectCaught(node, before, prover);
  }, 90_000);

  it('a model proof with an empty generation (the file’s public ranges right, the model’s numbers for ending at once) fails: suspended, never serving the model', async () => {
    const pretender = await ScriptedNode.pair(stack, prover, {
      models: [],
      write: async (c) => ({ text: '', commitment: encodeCommitment((await modelsNumbersFor(c, [[EOG]])).steps[0]!) }),
    });
    await pretender.heartbeat([MODEL]);
    await pretender.heartbeat([MODEL]);
    const failure = await proofFailure(pretender.id);
    expect(failure).toMatch(/^generation: /);
    const view = (await stack.http.get('/api/nodes').set(prover.auth)).body.nodes.find((n: { id: string }) => n.id === pretender.id);
    expect(view).toMatchObject({ status: 'paused', paused_reason: FAILED_PROOF, proven_models: [] });
    expect((await stack.http.patch(`/api/nodes/${pretender.id}`).set(prover.auth).send({ paused: false })).status).toBe(409);
    expect(await pretender.claim(1)).toBeNull();
  }, 90_000);

  it('a proof answered later than the model’s size allows is refused without penalty; a fresh challenge answered in time proves the model', async () => {
    const slow = await ScriptedNode.pair(stack, prover, { models: [], write: modelsProof });
    await slow.heartbeat([MODEL]);
    // Its answer is ready; the platform's clock says the challenge went out a minute ago (the tiny model allows ~20 s).
    await stack.db.query(`UPDATE model_proofs SET issued_at = issued_at - interval '60 seconds' WHERE node_id = $1`, [slow.id]);
    await slow.heartbeat([MODEL]);
    expect(await proofFailure(slow.id)).toMatch(/^time: answered after 6\d\.\d s, the model's size allows 20\.\d s$/);
    const [row] = (await stack.db.query(`SELECT paused, suspended_at FROM nodes WHERE id = $1`, [slow.id])) as Array<{
      paused: boolean;
      suspended_at: Date | null;
    }>;
    expect(row).toEqual({ paused: false, suspended_at: null });
    await slow.prove([MODEL]);
    const proofs = (await stack.db.query(`SELECT status FROM model_proofs WHERE node_id = $1 ORDER BY issued_at`, [slow.id])) as Array<{
      status: string;
    }>;
    expect(proofs.map((p) => p.status)).toEqual(['failed', 'proven']);
  }, 90_000);

  it('a reply held back and sent in a burst is timed from the claim: its measured speed is no more than its tokens over that time', async () => {
    const node = await ScriptedNode.pair(stack, prover, { models: [MODEL], write: modelsProof });
    const [prior] = (await stack.db.query(`SELECT measured_tps FROM nodes WHERE id = $1`, [node.id])) as Array<{ measured_tps: number | null }>;
    let claimed = 0;
    let tokens = 0;
    const streamId = await serve(node, async (job) => {
      claimed = Date.now();
      const r = await committedReply(job);
      tokens = r.steps.length;
      await new Promise((res) => setTimeout(res, 1_000));
      return { text: r.text, steps: r.steps, stopReason: r.stopReason };
    });
    const elapsed = (Date.now() - claimed) / 1000;
    // The reply is timed from its claim, the held second included, whatever the node's burst says…
    const [task] = (await stack.db.query(`SELECT duration_ms, completion_tokens FROM inference_tasks WHERE stream_id = $1`, [streamId])) as Array<{
      duration_ms: number;
      completion_tokens: number;
    }>;
    expect(task!.duration_ms).toBeGreaterThanOrEqual(1_000);
    expect(task!.completion_tokens).toBeLessThanOrEqual(tokens);
    // …and the node's measured speed moves towards that reply's speed, never above it and what it was before.
    const [row] = (await stack.db.query(`SELECT measured_tps FROM nodes WHERE id = $1`, [node.id])) as Array<{ measured_tps: number }>;
    expect(row!.measured_tps).toBeGreaterThan(0);
    // (A billionth over: the platform divides in another order than this test, and the last bit of a double may differ.)
    const bound = Math.max(prior!.measured_tps ?? 0, tokens / elapsed + 1, (tokens * 1000) / task!.duration_ms);
    expect(row!.measured_tps).toBeLessThanOrEqual(bound * (1 + 1e-9));
    expect(await verdicts(node.id, 1)).toEqual(['passed']);
  }, 90_000);
});
