import {
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/repository';
import type { InferenceJob } from '../../jobs/jobs';
import { JobsService } from '../../jobs/jobs.service';
import { REDIS } from '../../redis/redis.module';
import type { ReplyRun } from '../../observability/metrics';
import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { InsufficientTokensException, LedgerService } from '../wallet/ledger.service';
import type { CatalogModel } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { FairQueue } from './fair-queue';
import { DailyLimitException, InferenceService, type StartedStream } from './inference.service';
import { NodesRepository } from './nodes.repository';
import { RepliesService } from './replies.service';
import { StreamSlots } from './stream-slots';
import { TasksRepository } from './tasks.repository';
import { TokenCounter } from '../catalog/token-counter';
import { toBase64 } from '../../common/vectors';
import { vectorProblem } from '../trust/answer-checks';

/** An embedding job's texts, after the API checked them. */
export interface EmbeddingRequest {
  modelId: string;
  input: string[];
  /** The key the request came with: its owner pays, its daily limit caps the hold, its counters count the tokens. */
  apiKeyId: string;
}

/**
 * Embeddings as inference jobs: a request holds exactly its input's tokens (counted by the platform with the model's
 * tokenizer) at the model's price, waits in the model's queue like a reply, and is settled through RepliesService by
 * whichever generator served it (an in-cluster worker or a remote node), once its vectors pass the check.
 */
@Injectable()
export class EmbeddingsService {
  private readonly logger = new Logger('Embeddings');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CatalogService,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly inference: InferenceService,
    private readonly tasks: TasksRepository,
    private readonly jobs: JobsService,
    private readonly ledger: LedgerService,
    private readonly nodes: NodesRepository,
    private readonly slots: StreamSlots,
    private readonly fair: FairQueue,
    private readonly transactions: Transactions,
    private readonly apiKeys: ApiKeysRepository,
    private readonly counter: TokenCounter,
    private readonly replies: RepliesService,
  ) {}

  private key(streamId: string): string {
    return `${this.config.redis.prefix}:embeddings:${streamId}`;
  }

  /** The catalog's embedding model of this id (404 unknown, 400 a chat model, 503 when no live node serves it). */
  async model(modelId: string): Promise<CatalogModel> {
    const model = this.catalog.get(modelId);
    if (!model) throw new NotFoundException(`Model ${modelId} not found`);
    if (model.kind !== 'embedding') throw new BadRequestException(`model: ${model.id} is a chat model; embeddings need an embedding model`);
    if (!(await this.nodes.liveModels()).get(model.id) || !this.counter.canCount(model.id)) {
      throw new ServiceUnavailableException(`Model ${model.id} is not available right now: no worker has it loaded`);
    }
    return model;
  }

  /** The length of the model's vectors, as its file says. */
  async dimensions(modelId: string): Promise<number> {
    return this.counter.embeddingLength(modelId);
  }

  /**
   * Queues the texts as one job: counts their tokens (400 for a text longer than the model's context), holds their
   * whole cost (402 when the balance or the key's daily limit cannot pay it all: what is charged is never more than
   * the hold), and enqueues the job. Events end with `done` (the vectors are then in `vectors()`) or `error`.
   */
  async start(userId: string, req: EmbeddingRequest): Promise<{ streamId: string; promptTokens: number; started: StartedStream }> {
    const model = await this.model(req.modelId);
    const counts = await Promise.all(req.input.map((text) => this.counter.countText(model.id, text)));
    // The model also reads a start (and maybe an end) token around each text.
    const longest = counts.findIndex((n) => n + 2 > model.contextLength);
    if (longest >= 0) throw new BadRequestException(`input: text ${longest} has ${counts[longest]} tokens, more than the model's context allows`);
    const promptTokens = counts.reduce((a, n) => a + n, 0);
    const cost = promptTokens * model.priceUnits;
    const { balance, held } = await this.ledger.walletOf(userId);
    if (balance - held < cost) throw new InsufficientTokensException(balance - held, cost);

    const streamId = `v1e_${randomUUID().replace(/-/g, '')}`;
    const slot = await this.slots.acquire(userId);
    try {
      const taskId = randomUUID();
      await this.tasks.claim({
        id: taskId,
        userId,
        modelId: model.id,
        streamId,
        requestHash: createHash('sha256')
          .update(JSON.stringify([model.id, req.input]))
          .digest('hex'),
        maxTokens: 0,
        priceUnits: model.priceUnits,
        conversationId: null,
        apiKeyId: req.apiKeyId,
      });
      let hold: { holdId: string; reserved: number } | null = null;
      try {
        if (cost > 0) hold = await this.hold(userId, req.apiKeyId, taskId, streamId, model, cost);
      } catch (err) {
        await this.tasks.remove(taskId);
        throw err;
      }
      const priority = await this.fair.join(userId, model.id, streamId);
      await this.jobs.enqueue(
        'inference.generate',
        {
          taskId,
          streamId,
          userId,
          modelId: model.id,
          messages: [],
          // Not used by an embedding: the sampling type wants one.
          params: { temperature: 0, max_tokens: 1, top_p: 1 },
          holdId: hold?.holdId ?? '',
          holdUnits: hold?.reserved ?? 0,
          priceUnits: model.priceUnits,
          requestedAt: Date.now(),
          embed: { input: req.input, promptTokens },
        },
        { jobId: streamId, priority },
      );
    } catch (err) {
      await slot.release();
      throw err;
    }
    return { streamId, promptTokens, started: this.inference.stream(streamId, slot) };
  }

  /** The whole cost, held under the key's lock so that concurrent requests never pass its daily limit together. */
  private hold(userId: string, apiKeyId: string, taskId: string, streamId: string, model: CatalogModel, cost: number) {
    return this.transactions.run(async (tx) => {
      const allowance = await this.apiKeys.lockAllowance(apiKeyId, tx);
      if (allowance === undefined) throw new UnauthorizedException('This API key has been revoked.');
      if (allowance !== null && allowance < cost) throw new DailyLimitException(allowance);
      const hold = await this.ledger.reserve(userId, cost, `API: ${model.id}`, streamId, tx);
      if (hold.reserved < cost) throw new InsufficientTokensException(hold.reserved, cost);
      await this.tasks.setHold(taskId, hold.holdId, tx);
      return hold;
    });
  }

  /** The vectors of a job that ended with `done`, in input order (base64 float32 each); null once they expired. */
  async vectors(streamId: string): Promise<string[] | null> {
    const raw = await this.redis.get(this.key(streamId));
    return raw ? (JSON.parse(raw) as string[]) : null;
  }

  /**
   * A generator's vectors for an embedding job: checked first (see vectorProblem); vectors that pass are kept for the
   * requester and the job completes, charged its counted tokens at the model's price; vectors that fail end it as
   * failed for that generator, at no charge. Answers what was wrong, or null.
   */
  async finish(job: InferenceJob, nodeId: string, vectors: Float32Array[], durationMs: number, run?: ReplyRun): Promise<string | null> {
    const embed = job.embed!;
    const problem = vectorProblem(vectors, embed.input.length, await this.dimensions(job.modelId));
    if (problem) {
      this.logger.warn(`Node ${nodeId} sent embeddings for ${job.streamId} that fail the check: ${problem}`);
      await this.replies.fail(job, nodeId, 'INTERNAL_ERROR', 0, run);
      return problem;
    }
    const ttl = this.config.inference.streamTtlSeconds;
    await this.redis.set(this.key(job.streamId), JSON.stringify(vectors.map(toBase64)), 'EX', ttl);
    await this.replies.complete(job, nodeId, { promptTokens: embed.promptTokens, completionTokens: 0 }, 'stop', durationMs, run);
    return null;
  }

  /** The job ended without vectors (its generator failed, or sent something other than vectors): nobody pays. */
  fail(job: InferenceJob, nodeId: string, run?: ReplyRun): Promise<boolean> {
    return this.replies.fail(job, nodeId, 'INTERNAL_ERROR', 0, run);
  }
}
