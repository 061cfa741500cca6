import {
  BadRequestException,
  ConflictException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  NotFoundException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { JobsService } from '../../jobs/jobs.service';
import { inferenceQueue, type InferenceJob, type JobTurn } from '../../jobs/jobs';
import { turnBytes } from '../../jobs/generation-input';
import { REDIS } from '../../redis/redis.module';
import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { ChatService } from '../chat/chat.service';
import { InsufficientTokensException, LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../../common/units';
import type { CatalogModel } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { resolveSampling, type GivenSampling } from './sampling';
import { FairQueue } from './fair-queue';
import { NodesRepository } from './nodes.repository';
import { TasksRepository } from './tasks.repository';
import { ReplyReaper } from './reaper.service';
import { StreamHub } from './stream-hub';
import { StreamSlot, StreamSlots } from './stream-slots';
import { StopSignals, stopKey } from '../../jobs/stop-signals';
import { StreamEvent, TokenStream } from './streams';

type Turn = JobTurn;

/** What a generation starts from: chat turns, or a raw prompt whose tokens the caller counted with the model's tokenizer. */
type PromptInput = { messages: Turn[] } | { prompt: string; promptTokens: number };

/** About 4 characters per token: what the prompt is expected to cost (the 402 check); a counted raw prompt, exactly. */
export const estimateTokens = (input: PromptInput) =>
  'prompt' in input ? input.promptTokens : input.messages.reduce((n, m) => n + Math.ceil(turnBytes(m) / 4) + 4, 2);

/**
 * An upper bound of the prompt's tokens for the hold (a byte-level tokenizer can need one token per
 * character, and the chat template adds some); what is not used is released when the reply ends.
 */
export const boundTokens = (input: PromptInput) =>
  'prompt' in input ? input.promptTokens : input.messages.reduce((n, m) => n + turnBytes(m) + 16, 16);

/** How long a stop that arrived before its stream is remembered. */
const EARLY_STOP_SECONDS = 60;

/** 402 for a request its API key's daily limit cannot pay for. */
export class DailyLimitException extends HttpException {
  constructor(leftUnits: number) {
    super(
      {
        statusCode: HttpStatus.PAYMENT_REQUIRED,
        message: `This API key's daily spending limit is reached (${toGlob(leftUnits)} GLOB left today).`,
        error: 'DAILY_LIMIT_REACHED',
      },
      HttpStatus.PAYMENT_REQUIRED,
    );
  }
}

/**
 * A reply to start: the web app's request, its `params` any of the sampling's fields (the OpenAI-compatible API gives
 * more of them than the web app: a seed, stop sequences, a JSON schema already cut to what the generators' grammars
 * support, logprobs).
 */
export type StartRequest = Omit<RequestBody<'startStream'>, 'params' | 'messages'> & { params?: GivenSampling; messages?: Turn[] };

/** What a request through the OpenAI-compatible API adds to a reply: its key (billed per key). */
export interface ApiRequestOptions {
  apiKeyId: string;
  /**
   * The request's `prompt` is a raw text the model continues without a chat template (legacy completions), of this
   * many tokens as the model's tokenizer counts the text alone.
   */
  rawPromptTokens?: number;
}

export interface StartedStream {
  streamId: string;
  /** Events from `after` on, until done or error. */
  events(after: number, signal?: AbortSignal): AsyncGenerator<{ id: number; event: StreamEvent; raw: string }>;
}

@Injectable()
export class InferenceService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CatalogService,
    private readonly tasks: TasksRepository,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly jobs: JobsService,
    private readonly ledger: LedgerService,
    private readonly nodes: NodesRepository,
    private readonly chat: ChatService,
    private readonly hub: StreamHub,
    private readonly slots: StreamSlots,
    private readonly reaper: ReplyReaper,
    private readonly transactions: Transactions,
    private readonly apiKeys: ApiKeysRepository,
    private readonly fair: FairQueue,
    private readonly stops: StopSignals,
  ) {}

  /** The catalog with each model's live nodes and how busy it is: replies queued for it (`waiting`) and being generated (`running`). */
  async listModels(): Promise<Schemas['ModelList']> {
    const catalog = this.catalog.models();
    const [live, load] = await Promise.all([
      this.nodes.liveModels(),
      Promise.all(catalog.map((m) => this.jobs.queue(inferenceQueue(m.id)).getJobCounts('waiting', 'prioritized', 'active'))),
    ]);
    return {
      models: catalog.map((m, i) => {
        const nodes = live.get(m.id) ?? 0;
        const counts = load[i]!;
        return {
          id: m.id,
          name: m.name,
          kind: m.kind,
          display_name: m.displayName,
          description: m.description,
          parameters: m.parameters,
          context_length: m.contextLength,
          price_per_token: toGlob(m.priceUnits),
          status: nodes > 0 ? 'available' : 'unavailable',
          status_reason: nodes > 0 ? null : 'No worker has this model loaded',
          nodes,
          // Replies queue with a priority (fair queueing), so a waiting one is in `prioritized` (or `wait` after a stall).
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          running: counts.active ?? 0,
        };
      }),
    };
  }

  private async availableModel(modelId: string): Promise<CatalogModel> {
    const model = this.catalog.get(modelId);
    if (!model) throw new NotFoundException(`Model ${modelId} not found`);
    if (model.kind === 'embedding') throw new BadRequestException(`model: ${model.id} is an embedding model; it answers only embeddings`);
    if (!(await this.nodes.liveModels()).get(model.id)) {
      throw new ServiceUnavailableException(`Model ${model.id} is not available right now: no worker has it loaded`);
    }
    return model;
  }

  /**
   * Queues a generation: reserves the cost of the prompt and up to max_tokens (402 when the balance cannot
   * pay for the prompt), records the task, and enqueues the job under the stream id, so starting the same
   * stream twice never starts two generations (nor saves the user's message twice).
   */
  async start(userId: string, input: StartRequest, api?: ApiRequestOptions): Promise<StartedStream> {
    const raw = api?.rawPromptTokens !== undefined ? { prompt: input.prompt!, promptTokens: api.rawPromptTokens } : null;
    let messages: Turn[] = input.messages ?? [{ role: 'user', content: input.prompt! }];
    // The request as given: a retry is the same request even after its conversation's settings changed.
    const requestHash = createHash('sha256')
      .update(JSON.stringify([input.modelId, raw ? { prompt: raw.prompt } : messages, input.params ?? {}, input.replace_from ?? null]))
      .digest('hex');
    const existing = await this.tasks.byStream(input.streamId);
    if (existing) {
      this.assertSameRequest(existing, userId, requestHash);
      return this.stream(input.streamId, await this.slots.acquire(userId));
    }
    const model = await this.availableModel(input.modelId);
    const conversationId = input.conversation_id;
    const replaceFrom = input.replace_from;
    if (replaceFrom && !conversationId) throw new BadRequestException('replace_from: needs conversation_id');
    let settings: Schemas['ConversationSettings'] | undefined;
    if (conversationId) {
      // With a bare prompt the model also sees the conversation so far (the engine trims the oldest turns to fit):
      // for a turn that replaces an earlier one, only what came before it.
      await this.chat.assertOwned(userId, conversationId);
      const history = await this.chat.history(conversationId, replaceFrom);
      if (!history) throw new NotFoundException('Message not found');
      settings = await this.chat.settings(conversationId);
      if (!input.messages) {
        // The conversation's system prompt comes first, as the model's chat template expects it.
        const system = settings.system_prompt;
        messages = [...(system ? [{ role: 'system' as const, content: system }] : []), ...history, messages.at(-1)!];
      }
    }
    // What the turn leaves out, the conversation's saved settings give, else the defaults.
    const params = resolveSampling(input.params, settings);
    // A prompt the balance cannot pay for is refused before anything is saved (a retry would save it twice).
    const prompt: PromptInput = raw ?? { messages };
    await this.assertAffordable(userId, model, prompt);
    const slot = await this.slots.acquire(userId);
    try {
      await this.queue({
        userId,
        streamId: input.streamId,
        model,
        prompt,
        params,
        requestHash,
        conversationId,
        replaceFrom,
        apiKeyId: api?.apiKeyId,
      });
    } catch (err) {
      await slot.release();
      throw err;
    }
    return this.stream(input.streamId, slot);
  }

  private assertSameRequest(task: { user_id: string; request_hash: string }, userId: string, requestHash: string): void {
    if (task.user_id !== userId || task.request_hash !== requestHash) throw new ConflictException('This streamId is already used by another request');
  }

  /**
   * Claims the stream id with the task row first: of identical requests racing, exactly one gets past the
   * insert; the others join its stream without holding anything. Only the winner holds the cost and saves the
   * user's message.
   */
  private async queue(args: {
    userId: string;
    streamId: string;
    model: CatalogModel;
    prompt: PromptInput;
    params: InferenceJob['params'];
    requestHash: string;
    conversationId?: string;
    /** A user message of the conversation this turn replaces, with everything after it. */
    replaceFrom?: string;
    apiKeyId?: string;
  }): Promise<void> {
    const { model, params } = args;
    const taskId = randomUUID();
    const claimed = await this.tasks.claim({
      id: taskId,
      userId: args.userId,
      modelId: model.id,
      streamId: args.streamId,
      requestHash: args.requestHash,
      maxTokens: params.max_tokens,
      priceUnits: model.priceUnits,
      conversationId: args.conversationId ?? null,
      apiKeyId: args.apiKeyId ?? null,
    });
    if (!claimed) {
      const other = await this.tasks.byStream(args.streamId);
      if (other) return this.assertSameRequest(other, args.userId, args.requestHash);
      throw new ConflictException('This streamId is already used by another request');
    }
    const fullCost = (boundTokens(args.prompt) + params.max_tokens) * model.priceUnits;
    let hold: { holdId: string; reserved: number } | null = null;
    try {
      if (fullCost > 0) hold = await this.reserve({ ...args, taskId }, fullCost);
    } catch (err) {
      // The balance changed since the check: the claim goes, and nothing was saved.
      await this.tasks.remove(taskId);
      throw err;
    }
    if (hold) await this.tasks.setHold(taskId, hold.holdId);
    let userMessageId: string | undefined;
    if (args.conversationId && 'messages' in args.prompt) {
      // Saved at once, so a closed tab loses nothing; the reply joins it when the stream ends.
      const last = args.prompt.messages.at(-1)!;
      userMessageId = (
        args.replaceFrom
          ? await this.chat.replaceFrom(args.userId, args.conversationId, args.replaceFrom, { content: last.content, model: model.id })
          : await this.chat.append(args.userId, args.conversationId, { role: 'user', content: last.content, status: 'sent', model: model.id })
      ).id;
    }
    // Fair queueing: the user's replies of this model already waiting or running put this one behind other users' first.
    const priority = await this.fair.join(args.userId, model.id, args.streamId);
    await this.jobs.enqueue(
      'inference.generate',
      {
        taskId,
        streamId: args.streamId,
        userId: args.userId,
        modelId: model.id,
        ...('prompt' in args.prompt ? { prompt: args.prompt.prompt } : { messages: args.prompt.messages }),
        params,
        holdId: hold?.holdId ?? '',
        holdUnits: hold?.reserved ?? 0,
        priceUnits: model.priceUnits,
        ...(args.conversationId ? { conversationId: args.conversationId } : {}),
        ...(userMessageId ? { userMessageId } : {}),
        requestedAt: Date.now(),
      },
      { jobId: args.streamId, priority },
    );
  }

  /**
   * The reply's hold. Through an API key it is also capped by what the key may still spend today, under the key's
   * lock, so concurrent requests can never together pass its daily limit (the task names its hold before the lock is
   * released: the next request counts it); a key revoked meanwhile reserves nothing.
   */
  private reserve(
    args: { taskId: string; userId: string; streamId: string; model: CatalogModel; prompt: PromptInput; apiKeyId?: string },
    units: number,
  ) {
    const { model, apiKeyId } = args;
    if (!apiKeyId) return this.ledger.reserve(args.userId, units, `AI reply (${model.displayName})`, args.streamId);
    return this.transactions.run(async (tx) => {
      const allowance = await this.apiKeys.lockAllowance(apiKeyId, tx);
      if (allowance === undefined) throw new UnauthorizedException('This API key has been revoked.');
      const minimum = (estimateTokens(args.prompt) + 1) * model.priceUnits;
      if (allowance !== null && allowance < minimum) throw new DailyLimitException(allowance);
      const hold = await this.ledger.reserve(
        args.userId,
        allowance === null ? units : Math.min(units, allowance),
        `API: ${model.id}`,
        args.streamId,
        tx,
      );
      await this.tasks.setHold(args.taskId, hold.holdId, tx);
      return hold;
    });
  }

  /** 402 unless the free balance pays for the prompt and at least one generated token. */
  private async assertAffordable(userId: string, model: CatalogModel, prompt: PromptInput): Promise<void> {
    const promptCost = estimateTokens(prompt) * model.priceUnits;
    const { balance, held } = await this.ledger.walletOf(userId);
    if (balance - held < promptCost || (model.priceUnits > 0 && balance - held < promptCost + model.priceUnits)) {
      throw new InsufficientTokensException(balance - held, promptCost);
    }
  }

  /**
   * The stream's events through the process's shared reader. A stream silent for the job lock time has its
   * task checked (the reaper ends a dead one with an error event), so a reader never hangs or ends silently.
   */
  stream(streamId: string, slot: StreamSlot): StartedStream {
    const key = TokenStream.key(this.config.redis.prefix, streamId);
    const { hub, reaper, redis } = this;
    const idleMs = this.config.inference.jobLockMs;
    return {
      streamId,
      async *events(after: number, signal?: AbortSignal) {
        try {
          // A reader that already has the final event (a reconnect after the end) has nothing more to wait for.
          const ended = await new TokenStream(redis, key).endedAt();
          if (ended !== null && after >= ended) return;
          yield* hub.read(key, { after, idleMs, signal, onIdle: async () => void (await reaper.checkStream(streamId)) });
        } finally {
          await slot.release();
        }
      },
    };
  }

  /**
   * A live (or recently finished) stream of the caller's, for late readers and reconnects. A job still queued
   * (or running without an event yet) has no events yet but will: its reader waits for them.
   */
  async replay(userId: string, streamId: string): Promise<StartedStream> {
    const task = await this.tasks.byStream(streamId);
    const live = task?.status === 'queued' || task?.status === 'running';
    if (!task || task.user_id !== userId || (!live && !(await this.redis.exists(TokenStream.key(this.config.redis.prefix, streamId))))) {
      throw new NotFoundException('Stream not found');
    }
    return this.stream(streamId, await this.slots.acquire(userId));
  }

  /**
   * Reaches whichever worker runs the job (a key for one not started yet, a message for one running). A stop
   * for a stream that does not exist yet (it raced its own start) is kept for the caller for a minute; the
   * worker honours a stop key only when it names the stream's owner.
   */
  async stop(userId: string, streamId: string): Promise<Schemas['StreamStopped']> {
    const task = await this.tasks.byStream(streamId);
    const key = stopKey(this.config.redis.prefix, streamId);
    if (!task) {
      await this.redis.set(key, userId, 'EX', EARLY_STOP_SECONDS, 'NX');
      return { stopped: true, stream_id: streamId };
    }
    if (task.user_id !== userId) throw new NotFoundException('Stream not found');
    if (task.status !== 'queued' && task.status !== 'running') return { stopped: false, stream_id: streamId };
    await this.stops.stop(userId, streamId);
    return { stopped: true, stream_id: streamId };
  }

  /** The same job, waited for. */
  async generate(userId: string, input: RequestBody<'generate'>): Promise<Schemas['GenerateResponse']> {
    const streamId = `gen_${randomUUID()}`;
    const started = await this.start(userId, {
      streamId,
      modelId: input.model_id,
      prompt: input.prompt,
      params: { temperature: input.temperature, max_tokens: input.maxTokens, top_p: input.top_p },
    });
    let text = '';
    let done: Extract<StreamEvent, { type: 'done' }> | undefined;
    for await (const { event } of started.events(0)) {
      if (event.type === 'token') text += event.text;
      else if (event.type === 'done') done = event;
      else if (event.type === 'error') {
        if (event.code === 'INSUFFICIENT_TOKENS') throw new InsufficientTokensException(0, 0);
        throw new ServiceUnavailableException(event.message);
      }
    }
    if (!done) throw new ServiceUnavailableException('The model did not answer in time');
    const task = await this.tasks.byStream(streamId);
    return {
      id: task!.id,
      model: input.model_id,
      choices: [{ index: 0, text, finish_reason: done.stop_reason }],
      usage: done.usage,
      cost: toGlob(task?.charged_units ?? 0),
    };
  }
}
