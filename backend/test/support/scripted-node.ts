import { join } from 'node:path';
import type { Response } from 'supertest';
import { BUILT_IN_CATALOG, TINY_EMBED_MODEL_FILE, TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { hashRanges } from '@glob/engine/file-proof';
import type { TokenLogprob } from '@glob/engine/logprobs';
import { COMMIT_TOP, encodeCommitment, encodeSteps, type Step } from '@glob/engine/commitment';
import { VERIFY_TOP } from '@glob/engine/verification';
import type { TestStack } from './app';
import { expectSpecResponse } from './contract';
import { runOnEngine } from './engine-run';

export interface Challenge {
  challenge_id: string;
  model_id: string;
  nonce: string;
  ranges: Array<{ offset: number; length: number }>;
  messages: Array<{ role: string; content: string }>;
  params: { temperature: number; max_tokens: number; top_p: number; seed: number };
}

/** A catalog model's file in test stacks: the tiny embedding model's for the embedding model, else the tiny model's. */
const fileOf = (modelId?: string) =>
  join(
    process.env.MODELS_DIR!,
    BUILT_IN_CATALOG.models.find((m) => m.id === modelId)?.kind === 'embedding' ? TINY_EMBED_MODEL_FILE : TINY_MODEL_FILE,
  );

/**
 * The tiny model's own answer to a request (a challenge's prompt, or a job's), generated in a child process with its
 * sampling and seed, as an honest node holding the model would.
 */
export async function modelsAnswer(c: Pick<Challenge, 'messages' | 'params'>): Promise<string> {
  return (await modelsReply(c)).text;
}

/**
 * The same, with the reply's tokens scored (logprobs with `top` candidates) as an honest node's engine scores them, how
 * it ended, and its commitment (base64, as the done event carries it).
 */
export async function modelsReply(
  c: Pick<Challenge, 'messages'> & { model_id?: string; params: Omit<Challenge['params'], 'seed'> & { seed?: number } },
  top?: number,
): Promise<{ text: string; stopReason: string; logprobs?: TokenLogprob[]; commitment: string }> {
  const { params } = c;
  const run = { messages: c.messages, sampling: { ...params, ...(top !== undefined ? { logprobs: top } : {}) }, commit: true };
  const out = await runOnEngine(fileOf(c.model_id), { generate: run });
  const r = out.lines.find((l) => l.type === 'result') as unknown as {
    text: string;
    stopReason: string;
    logprobs?: TokenLogprob[];
    commitment: Step[];
  };
  return { ...r, commitment: encodeCommitment(r.commitment) };
}

/** A chat job's request as the engine takes it: the job's sampling and seed (its grammar, stops and scoring left out). */
const engineRun = ({ messages, params: { temperature, max_tokens, top_p, seed } }: Pick<NodeJob, 'messages' | 'params'>) => ({
  messages,
  sampling: { temperature, max_tokens, top_p, seed },
});

/** An honest node's reply to a job: the model's text, how it ended, and the commitment its engine made while generating. */
export async function committedReply(job: Pick<NodeJob, 'messages' | 'params'>): Promise<{ text: string; stopReason: string; steps: Step[] }> {
  const out = await runOnEngine(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), { generate: { ...engineRun(job), commit: true } });
  const r = out.lines.find((l) => l.type === 'result') as unknown as { text: string; stopReason: string; commitment: Step[] };
  return { text: r.text, stopReason: r.stopReason, steps: r.commitment };
}

/**
 * What a node that holds the model but writes its own text can commit to: the model's true numbers for tokens it
 * chose (one pass over them, as a verifier makes), and the token ids of `texts`.
 */
export async function modelsNumbersFor(
  job: Pick<NodeJob, 'messages' | 'params'>,
  tokens: number[][],
  texts: string[] = [],
): Promise<{ steps: Step[][]; texts: string[]; tokens: number[][] }> {
  const out = await runOnEngine(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), {
    tokenize: texts,
    recompute: tokens.map((t) => ({ messages: job.messages, sampling: job.params, tokens: t })),
  });
  const recomputed = out.lines.filter((l) => l.type === 'recomputed') as unknown as Array<{ steps: Step[]; text: string }>;
  return {
    steps: recomputed.map((r) => r.steps.map((x) => ({ ...x, top: x.top.slice(0, COMMIT_TOP) }))),
    texts: recomputed.map((r) => r.text),
    tokens: (out.lines.find((l) => l.type === 'tokens') as unknown as { tokens: number[][] }).tokens,
  };
}

/** An honest verifier's answer to a `verify` job: the model's numbers at each of its tokens (base64, VERIFY_TOP candidates). */
export async function modelsRecomputation(job: Pick<NodeJob, 'messages' | 'params' | 'tokens'>): Promise<string> {
  const out = await runOnEngine(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), {
    recompute: [{ messages: job.messages, sampling: job.params, tokens: job.tokens ?? [] }],
  });
  const [r] = out.lines.filter((l) => l.type === 'recomputed') as unknown as Array<{ steps: Step[] }>;
  return encodeSteps(r!.steps, VERIFY_TOP);
}

/** The tiny embedding model's vectors for `texts`, as an honest node's engine computes them (base64 float32 each). */
export async function modelsEmbeddings(texts: string[]): Promise<Float32Array[]> {
  const out = await runOnEngine(join(process.env.MODELS_DIR!, TINY_EMBED_MODEL_FILE), { embed: texts });
  return (out.lines.find((l) => l.type === 'embeddings') as unknown as { vectors: number[][] }).vectors.map((v) => Float32Array.from(v));
}

/** What a node generates for a challenge's prompt; any text passes where no trusted generator judges it. */
export type ChallengeWriter = (c: Challenge) => Promise<string | { text: string; commitment: string }>;

/** An honest node's answer to a challenge: the model's reply and the commitment its engine made while generating it. */
export async function modelsProof(c: Challenge): Promise<{ text: string; commitment: string }> {
  const { text, commitment } = await modelsReply(c);
  return { text, commitment };
}

/**
 * Answers model challenges as a node holding the files would: in test stacks every catalog model's file is the tiny
 * model's, the embedding model's the tiny embedding model's (test/support/catalog.ts).
 */
export async function answerChallenges(challenges: Challenge[] | undefined, write: ChallengeWriter = async () => 'x') {
  return Promise.all(
    (challenges ?? []).map(async (c) => {
      const answer = await write(c);
      return {
        challenge_id: c.challenge_id,
        range_hashes: await hashRanges(fileOf(c.model_id), c.nonce, c.ranges),
        ...(typeof answer === 'string' ? { text: answer } : answer),
      };
    }),
  );
}

export const TEST_HOST = { hostname: 'test-box', os: 'linux', arch: 'x64', cpu_cores: 4, memory_bytes: 8 * 2 ** 30, gpu: null, vram_bytes: null };

export interface NodeJob {
  job_id: string;
  model_id: string;
  messages: Array<{ role: string; content: string }>;
  params: { max_tokens: number; temperature: number; top_p: number; seed?: number };
  lock_ms: number;
  first_token_ms: number;
  max_bytes: number;
  request_id?: string;
  kind?: 'chat' | 'embed' | 'verify';
  input?: string[];
  tokens?: number[];
  top?: number;
}

/**
 * A heartbeat as the agent sends it, then again with the answers to its challenges until none is left (where no
 * trusted generator judges the text, a node's models are proven at the second beat).
 */
export async function provingHeartbeat(stack: TestStack, auth: Record<string, string>, body: object): Promise<Response> {
  let proofs: Awaited<ReturnType<typeof answerChallenges>> = [];
  for (let round = 0; ; round++) {
    const res = await stack.http
      .post('/api/nodes/heartbeat')
      .set(auth)
      .send({ ...body, ...(proofs.length ? { proofs } : {}) });
    const challenges = res.status === 200 ? (res.body.challenges as Challenge[] | undefined) : undefined;
    if (!challenges?.length || round === 2) return res;
    proofs = await answerChallenges(challenges);
  }
}

let origins = 0;

/**
 * A node that speaks the public node API from a script, not the project's agent: it says whatever the test makes
 * it say (usage, models, speed, text), as a stranger's modified agent could. Every answer is checked against the spec.
 */
export class ScriptedNode {
  /** Answers to the challenges of the last heartbeat, sent with the next. */
  private proofs: Awaited<ReturnType<typeof answerChallenges>> = [];

  private constructor(
    private readonly stack: TestStack,
    readonly id: string,
    /** Its credential, and the address it connects from (each scripted node its own network, behind the stack's trusted proxy). */
    readonly auth: { Authorization: string; 'X-Forwarded-For': string },
    private readonly write?: ChallengeWriter,
  ) {}

  /** Pairs with a fresh join token of `owner`, claiming whatever benchmark and host the test gives. */
  static async pair(
    stack: TestStack,
    owner: { auth: Record<string, string> },
    opts: { models?: string[]; name?: string; tokensPerSecond?: number; host?: object; slots?: number; write?: ChallengeWriter } = {},
  ): Promise<ScriptedNode> {
    const token = await stack.http.post('/api/nodes/join-tokens').set(owner.auth);
    expectSpecResponse(token, 'createJoinToken');
    const res = await stack.http.post('/api/nodes/register').send({
      join_token: token.body.join_token,
      name: opts.name ?? `scripted-${Date.now().toString(36)}`,
      host: opts.host ?? TEST_HOST,
      models: opts.models ?? [],
      benchmark: { model_id: opts.models?.[0] ?? 'glob-tiny-chat', tokens_per_second: opts.tokensPerSecond ?? 100 },
    });
    expectSpecResponse(res, 'registerNode');
    if (res.status !== 201) throw new Error(`register ${res.status}: ${res.text}`);
    const origin = `10.201.${++origins % 250}.${1 + Math.floor(origins / 250)}`;
    const node = new ScriptedNode(
      stack,
      res.body.node_id as string,
      { Authorization: `Bearer ${res.body.credential as string}`, 'X-Forwarded-For': origin },
      opts.write,
    );
    await node.prove(opts.models ?? [], opts.slots);
    return node;
  }

  /** Heartbeats, answering its challenges, until every model is proven (its model counts only then). */
  async prove(models: string[], slots?: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = (await this.stack.db.query(`SELECT model_id FROM model_proofs WHERE node_id = $1 AND status = 'proven'`, [this.id])) as Array<{
        model_id: string;
      }>;
      // The platform offers a proven model from the node's next heartbeat on, so one beat follows the proof.
      await this.heartbeat(models, slots);
      if (models.every((m) => rows.some((r) => r.model_id === m))) return;
      if (Date.now() > deadline) throw new Error(`models ${models.join(', ')} of node ${this.id} never proven`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private spec(res: Response, op: string): Response {
    expectSpecResponse(res, op);
    return res;
  }

  /** Sends its heartbeat; `extra` adds fields (an agent version, say). */
  async heartbeat(models: string[], slots?: number, extra: object = {}): Promise<Response> {
    const proofs = this.proofs.splice(0);
    const res = this.spec(
      await this.stack.http
        .post('/api/nodes/heartbeat')
        .set(this.auth)
        .send({ models, running_jobs: 0, ...(slots ? { slots } : {}), ...(proofs.length ? { proofs } : {}), ...extra }),
      'nodeHeartbeat',
    );
    if (res.status === 200) this.proofs = await answerChallenges(res.body.challenges as Challenge[] | undefined, this.write);
    return res;
  }

  /**
   * The next job for it. A check of another owner's work (a `verify` job) is answered honestly, as the agent would,
   * and the claim goes on, unless `checks` asks for such jobs too (a test that plays the verifier).
   */
  async claim(waitSeconds = 5, checks = false): Promise<NodeJob | null> {
    for (;;) {
      const res = this.spec(await this.stack.http.post('/api/nodes/jobs/claim').set(this.auth).send({ wait_seconds: waitSeconds }), 'claimNodeJob');
      if (res.status === 204) return null;
      if (res.status !== 200) throw new Error(`claim ${res.status}: ${res.text}`);
      const job = res.body as NodeJob;
      if (checks || job.kind !== 'verify') return job;
      await this.recomputation(job.job_id, await modelsRecomputation(job));
    }
  }

  /** Sends `text` as the job's whole output, then `done` with this stop reason and commitment. */
  finishCommitted(jobId: string, text: string, steps: Step[] | null, stopReason = 'stop'): Promise<Response> {
    return this.send(jobId, [
      ...(text ? [{ type: 'token', text }] : []),
      {
        type: 'done',
        usage: { prompt_tokens: 10, completion_tokens: steps?.length ?? 0 },
        stop_reason: stopReason,
        ...(steps ? { commitment: encodeCommitment(steps) } : {}),
      },
    ]);
  }

  /** Sends `text` as the job's whole output, then `done`. */
  finish(jobId: string, text: string): Promise<Response> {
    return this.send(jobId, [
      ...(text ? [{ type: 'token', text }] : []),
      { type: 'done', usage: { prompt_tokens: 10, completion_tokens: 20 }, stop_reason: 'stop' },
    ]);
  }

  /** Answers a `verify` job with these steps (base64, as modelsRecomputation gives them). */
  recomputation(jobId: string, steps: string): Promise<Response> {
    return this.stack.http
      .post(`/api/nodes/jobs/${jobId}/recomputation`)
      .set(this.auth)
      .send({ steps })
      .then((r) => this.spec(r, 'sendNodeJobRecomputation'));
  }

  send(jobId: string, events: object[], from?: number): Promise<Response> {
    return this.stack.http
      .post(`/api/nodes/jobs/${jobId}/events`)
      .set(this.auth)
      .send({ events, ...(from !== undefined ? { from } : {}) })
      .then((r) => this.spec(r, 'sendNodeJobEvents'));
  }

  /** Opens the job's events stream (streamNodeJobEvents) with its first line, as the agent does. */
  stream(jobId: string, first: string): Promise<EventStream> {
    return EventStream.open(`${this.stack.url}/api/nodes/jobs/${jobId}/events/stream`, this.auth, first);
  }
}

/**
 * One streamNodeJobEvents request seen from the node's side: lines written into its body as the test likes (whole
 * batches, halves, garbage), and its answer's lines read one at a time.
 */
export class EventStream {
  private readonly pending: string[] = [];
  private buffered = '';
  private ended = false;
  private wake: (() => void) | null = null;

  private constructor(
    readonly status: number,
    readonly contentType: string | null,
    private readonly body: ReadableStreamDefaultController<Uint8Array>,
    answer: ReadableStream<Uint8Array> | null,
  ) {
    void this.readAnswer(answer);
  }

  static async open(url: string, auth: Record<string, string>, first: string): Promise<EventStream> {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    controller.enqueue(new TextEncoder().encode(first));
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    return new EventStream(res.status, res.headers.get('content-type'), controller, res.body);
  }

  /** Writes raw text into the body (a line needs its own newline). */
  write(text: string): void {
    this.body.enqueue(new TextEncoder().encode(text));
  }

  /** Writes one events line and reads its answer. */
  async send(events: object[]): Promise<Record<string, unknown> | null> {
    this.write(`${JSON.stringify({ events })}\n`);
    return this.next();
  }

  /** The answer's next line, parsed; null once the answer has ended. */
  async next(): Promise<Record<string, unknown> | null> {
    while (this.pending.length === 0 && !this.ended) await new Promise<void>((r) => (this.wake = r));
    const line = this.pending.shift();
    return line === undefined ? null : (JSON.parse(line) as Record<string, unknown>);
  }

  /** Ends the body. */
  close(): void {
    try {
      this.body.close();
    } catch {
      // Already closed (the answer ended first, or close was called twice).
    }
  }

  private async readAnswer(answer: ReadableStream<Uint8Array> | null): Promise<void> {
    try {
      for await (const chunk of answer ?? []) {
        this.buffered += Buffer.from(chunk).toString('utf8');
        for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
          this.pending.push(this.buffered.slice(0, nl));
          this.buffered = this.buffered.slice(nl + 1);
        }
        this.wake?.();
      }
    } catch {
      // The connection was cut: whatever came before it stands.
    }
    if (this.buffered.trim()) this.pending.push(this.buffered);
    this.ended = true;
    this.wake?.();
  }
}
