import { isFramedJson, unframe } from '@glob/engine/tool-format';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { InferenceJob } from '../../jobs/jobs';
import { generationInput, inputBytes } from '../../jobs/generation-input';
import { REDIS } from '../../redis/redis.module';
import { completionBudget, holdTokens } from './budget';
import { CatalogService } from '../catalog/catalog.service';
import type { TokenLogprob } from '@glob/engine/logprobs';
import { replyLogprobsProblem } from '../trust/answer-checks';
import { matchesJsonSchema } from '../trust/json-schema-check';
import { REAPED } from './reaper.service';
import { taskDifficulty } from '../rewards/rewards';
import { stopKey } from '../../jobs/stop-signals';
import { StreamEvent, TokenStream } from './streams';
import { TasksRepository } from './tasks.repository';
import { TasksService } from './tasks.service';
import { errors, observeReply, type ReplyRun } from '../../observability/metrics';

export type StopReason = Extract<StreamEvent, { type: 'done' }>['stop_reason'];
type FailCode = 'WORKER_FAILED' | 'INSUFFICIENT_TOKENS' | 'INTERNAL_ERROR';

/** What the requester reads when a reply fails; a node's own error text only reaches the log. */
const FAILED: Record<FailCode, string> = {
  WORKER_FAILED: REAPED.WORKER_FAILED,
  INSUFFICIENT_TOKENS: 'Payment required: insufficient tokens for this prompt.',
  INTERNAL_ERROR: 'The model could not generate a reply. Please try again.',
};

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * One inference core for every generator: the in-cluster worker (around its own llama.cpp) and remote nodes
 * (through the node endpoints) start, stream, complete and fail replies only through these methods, so the
 * budget cut, pricing, settlement, saving the reply and the reward follow the same rules whoever generated it.
 */
@Injectable()
export class RepliesService {
  private readonly logger = new Logger('Replies');
  private readonly ttl: number;
  /** Writes to one reply's stream, in order (the stream's entry ids are consecutive). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly taskRows: TasksRepository,
    private readonly tasks: TasksService,
    private readonly catalog: CatalogService,
  ) {
    this.ttl = config.inference.streamTtlSeconds;
  }

  private stream(job: InferenceJob): TokenStream {
    return new TokenStream(this.redis, TokenStream.key(this.config.redis.prefix, job.streamId));
  }

  /**
   * Work on a reply's stream in this process's write order for it (its appends, its end): `work` starts once what came
   * before it has ended.
   */
  inOrder<T>(job: InferenceJob, work: () => Promise<T>): Promise<T> {
    return this.serial(job, work);
  }

  private serial<T>(job: InferenceJob, work: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(job.streamId) ?? Promise.resolve();
    const next = prev.then(work, work);
    const settled = next.catch(() => undefined);
    this.chains.set(job.streamId, settled);
    void settled.then(() => {
      if (this.chains.get(job.streamId) === settled) this.chains.delete(job.streamId);
    });
    return next;
  }

  /**
   * The node starts the reply. False when it must not run: it ended meanwhile (timed out, its model had no node),
   * or an earlier attempt already streamed tokens (its node died mid-reply) — a reply cannot be resumed
   * seamlessly, so it ends now with WORKER_FAILED and nothing is charged.
   */
  async begin(job: InferenceJob, nodeId: string): Promise<boolean> {
    if ((await this.stream(job).lastSeq()) > 0) {
      await this.fail(job, nodeId, 'WORKER_FAILED');
      return false;
    }
    return this.taskRows.start(job.taskId, nodeId);
  }

  /** The tokens, prompt included, the requester's hold pays for; null for a free model. */
  private holdTokens(job: InferenceJob): number | null {
    return holdTokens(job.holdUnits, job.priceUnits);
  }

  /** How many tokens the reply may generate after this prompt; null (the reply ended) when the hold cannot pay for the prompt. */
  async budget(job: InferenceJob, nodeId: string, promptTokens: number): Promise<{ maxTokens: number; budgetLimited: boolean } | null> {
    const budget = completionBudget(promptTokens, job.params.max_tokens, this.holdTokens(job));
    if ('insufficient' in budget) {
      await this.fail(job, nodeId, 'INSUFFICIENT_TOKENS', promptTokens);
      return null;
    }
    return budget;
  }

  /** Streams generated text to the requester. */
  tokens(job: InferenceJob, text: string): Promise<void> {
    return this.serial(job, async () => {
      await this.stream(job).append({ type: 'token', text });
    });
  }

  /** True when the requester asked to stop this reply. */
  async stopRequested(job: InferenceJob): Promise<boolean> {
    return (await this.redis.get(stopKey(this.config.redis.prefix, job.streamId))) === job.userId;
  }

  /**
   * Whether the text a reply ends with is what was asked for. A reply that must be JSON matching a schema must parse
   * and match it (inside its frame, when it has one), unless it ran out of tokens (its JSON unfinished) or its requester
   * stopped it: whoever generated it, a stranger's node included, since a node can send any text.
   */
  async conforms(job: InferenceJob, text: string, stopReason: StopReason): Promise<boolean> {
    const { json_schema: schema, json_frame: frame } = job.params;
    if (!schema || stopReason === 'length') return true;
    if (stopReason === 'abort' && (await this.stopRequested(job))) return true;
    if (!frame) return matchesJsonSchema(schema, text);
    // A family's tool call: the JSON inside its frame; or, where the reply may answer instead, plain text.
    if (frame.or_text && !isFramedJson(frame, text)) return true;
    const json = unframe(frame, text);
    return json !== null && matchesJsonSchema(schema, json);
  }

  /**
   * The reply is complete: charged for the tokens used at the model's price, never more than the hold; a reply
   * cut by the budget says so. A reply whose text or logprobs are not what was asked for (see conforms and
   * replyLogprobsProblem) fails instead, counted against its node, and costs nothing. False when it did not complete, or
   * had already ended (nothing is charged or saved twice).
   */
  complete(
    job: InferenceJob,
    nodeId: string,
    usage: Usage,
    stopReason: StopReason,
    durationMs: number,
    run?: ReplyRun,
    logprobs?: TokenLogprob[],
  ): Promise<boolean> {
    return this.serial(job, async () => {
      const stream = this.stream(job);
      const text = await stream.text();
      const wrong = !(await this.conforms(job, text, stopReason))
        ? 'text that does not match its JSON schema'
        : replyLogprobsProblem(job, text, stopReason, logprobs);
      if (wrong) {
        this.logger.warn(`Node ${nodeId} ended reply ${job.streamId} (${stopReason}) with ${wrong}`);
        await this.failNow(job, nodeId, 'INTERNAL_ERROR', usage.promptTokens, run);
        return false;
      }
      const budget = completionBudget(usage.promptTokens, job.params.max_tokens, this.holdTokens(job));
      const cut = stopReason === 'length' && !('insufficient' in budget) && budget.budgetLimited && usage.completionTokens >= budget.maxTokens;
      const reason: StopReason = cut ? 'budget' : stopReason;
      const used = usage.promptTokens + usage.completionTokens;
      const promptBytes = inputBytes(generationInput(job));
      const model = this.catalog.get(job.modelId);
      const ended = await this.tasks.finish({
        taskId: job.taskId,
        nodeId,
        holdId: job.holdId,
        ...this.reply(job, text),
        status: 'completed',
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        chargedUnits: Math.min(job.holdUnits, used * job.priceUnits),
        bytes: promptBytes + Buffer.byteLength(text),
        durationMs,
        stopReason: reason,
        error: null,
        difficulty: model ? taskDifficulty(model.parameters, used) : 1,
      });
      if (!ended) return false;
      observeReply(job.modelId, run, 'completed', usage, job.requestedAt);
      await stream.append({
        type: 'done',
        success: true,
        usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: used },
        stop_reason: reason,
        ...(job.params.logprobs !== undefined && logprobs ? { logprobs } : {}),
      });
      await stream.finish(this.ttl);
      return true;
    });
  }

  /** The reply failed: it ends with an error event and costs nothing. False when it had already ended. */
  fail(job: InferenceJob, nodeId: string | null, code: FailCode, promptTokens = 0, run?: ReplyRun): Promise<boolean> {
    return this.serial(job, () => this.failNow(job, nodeId, code, promptTokens, run));
  }

  /** fail(), in the reply's write order already. */
  private async failNow(job: InferenceJob, nodeId: string | null, code: FailCode, promptTokens: number, run?: ReplyRun): Promise<boolean> {
    const stream = this.stream(job);
    const ended = await this.tasks.finish({
      taskId: job.taskId,
      nodeId,
      holdId: job.holdId,
      ...this.reply(job, await stream.text()),
      status: 'failed',
      promptTokens,
      completionTokens: 0,
      chargedUnits: 0,
      bytes: 0,
      durationMs: 0,
      stopReason: null,
      error: FAILED[code],
      difficulty: 1,
    });
    if (!ended) return false;
    observeReply(job.modelId, run, 'failed', { promptTokens, completionTokens: 0 }, job.requestedAt);
    errors.inc({ type: code });
    await stream.append({ type: 'error', code, message: FAILED[code] });
    await stream.finish(this.ttl);
    return true;
  }

  /** The text streamed so far (what a reply ended from outside keeps). */
  streamedText(job: InferenceJob): Promise<string> {
    return this.stream(job).text();
  }

  /** Whether any event of the reply has reached the requester. */
  async started(job: InferenceJob): Promise<boolean> {
    return (await this.stream(job).lastSeq()) > 0;
  }

  private reply(job: InferenceJob, content: string) {
    return job.conversationId ? { reply: { conversationId: job.conversationId, userMessageId: job.userMessageId, content, model: job.modelId } } : {};
  }
}
