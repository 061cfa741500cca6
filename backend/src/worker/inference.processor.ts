import { LoadGenerator, type WorkerEngine } from './load-generator';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { statSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import constants from '@glob/contract/constants.json';
import { formatBytes } from '@glob/engine/bytes';
import { sequenceMemory } from '@glob/engine/memory';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { JobSeal, type StoredJob } from '../jobs/job-seal';
import { InferenceJob, inferenceQueue, VerifyJob, verifyQueue } from '../jobs/jobs';
import { generationInput } from '../jobs/generation-input';
import { modelsForWorker } from '../modules/catalog/catalog';
import { CatalogService } from '../modules/catalog/catalog.service';
import { LlamaEngine } from '@glob/engine/llama-engine';
import { NodesRepository } from '../modules/inference/nodes.repository';
import { RepliesService } from '../modules/inference/replies.service';
import { EmbeddingsService } from '../modules/inference/embeddings.service';
import { hardwareScore } from '../modules/rewards/rewards';
import { SpotChecksService, verifierKey } from '../modules/trust/spot-checks.service';
import { generateReply } from '@glob/engine/generation';
import { VERIFY_TOP } from '@glob/engine/verification';
import { stopChannel } from '../jobs/stop-signals';
import { createRedis, REDIS } from '../redis/redis.module';
import { withRequestId } from '../observability/logging';
import { queueWait, type ReplyRun } from '../observability/metrics';

/**
 * The inference worker: loads its models into llama.cpp, registers itself as a node (hardware, score,
 * models, heartbeat), and runs generation jobs from its models' queues, streaming tokens into Redis Streams.
 * Several of these, on one machine or many, and remote nodes claiming through the API, share the queues.
 */
@Injectable()
export class InferenceProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InferenceWorker');
  private engine: WorkerEngine | undefined;
  private readonly workers: Worker[] = [];
  private connection: Redis | undefined;
  private subscriber: Redis | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private nodeId: string | undefined;
  private loaded: string[] = [];
  private readonly running = new Map<string, AbortController>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly nodes: NodesRepository,
    private readonly replies: RepliesService,
    private readonly spotChecks: SpotChecksService,
    private readonly embeddings: EmbeddingsService,
    private readonly seal: JobSeal,
    private readonly catalog: CatalogService,
  ) {}

  get id(): string | undefined {
    return this.nodeId;
  }

  /** The models loaded and taking jobs (empty until loading ends, or when none could be loaded). */
  get models(): string[] {
    return this.workers.length ? [...this.loaded] : [];
  }

  async onApplicationBootstrap(): Promise<void> {
    const wanted = modelsForWorker(this.config, this.catalog.models());
    if (this.config.inference.workerModels?.join() === 'none') return; // a mail-only worker
    if (wanted.length === 0) {
      this.logger.warn(
        `No model files found (MODELS_DIR ${this.config.inference.modelsDir}); this worker runs no inference. Run \`npm run model:tiny\`.`,
      );
      return;
    }
    const { threads, gpu } = this.config.inference;
    const load = this.config.inference.loadTokensPerSecond;
    this.engine = load !== null ? new LoadGenerator(load) : await LlamaEngine.create({ threads, gpu });
    if (load !== null) this.logger.warn(`Load generator: made-up tokens at ${load}/s per reply, no model (a bench only)`);
    for (const m of wanted) {
      try {
        // Replies run as sequences of one context, batched together: as many as WORKER_CONCURRENCY, or as the default
        // memory allocation leaves room for beside the model.
        const sequences = this.config.inference.concurrency ?? {
          memoryBytes: sequenceMemory(totalmem(), constants.nodeAllocation.memory_percent.default, statSync(m.path).size),
        };
        await this.engine.load(m.id, m.path, { contextSize: m.contextLength, sequences });
        this.loaded.push(m.id);
        const c = this.engine.capacity(m.id);
        this.logger.log(
          `Loaded ${m.id} from ${m.path}: ${c.sequences} replies at once (sequences of ${c.contextSize} tokens, KV cache ${formatBytes(c.kvBytesPerSequence)} each)`,
        );
      } catch (err) {
        this.logger.error(`Cannot load ${m.id} (${m.path}): ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (this.loaded.length === 0) return;

    const bench = await this.engine.benchmark(this.loaded[0]!, 64);
    const score = hardwareScore(bench.tokensPerSecond, gpu);
    const ownerEmail = this.config.inference.workerOwnerEmail;
    // A verify-only worker is a trusted generator for spot checks and serves no replies: it offers no model.
    const verifyOnly = this.config.inference.workerVerifyOnly;
    const serving = verifyOnly ? [] : this.loaded;
    const node = await this.nodes.register({
      ownerEmail: ownerEmail ?? null,
      name: this.config.inference.workerName,
      host: hostname(),
      cpuCores: cpus().length,
      ramBytes: totalmem(),
      gpu: gpu ? 'gpu' : null,
      vramBytes: null,
      threads,
      hardwareScore: score,
      models: serving,
    });
    this.nodeId = node.id;
    // No account, so no user id to log; the address itself is personal data and stays out of the log.
    if (ownerEmail && !node.ownerId) this.logger.warn('WORKER_OWNER_EMAIL has no account yet: rewards start once it signs up');
    const beat = async () => {
      await this.nodes.heartbeat(this.nodeId!, serving, ownerEmail);
      // It can replay the replies of its models for spot checks while it beats.
      for (const m of this.loaded)
        await this.redis.set(verifierKey(this.config.redis.prefix, m), this.nodeId!, 'EX', this.config.inference.nodeLiveSeconds);
    };
    await beat();
    this.heartbeat = setInterval(() => {
      beat().catch((err: Error) => this.logger.warn(`Heartbeat failed: ${err.message}`));
    }, this.config.inference.heartbeatSeconds * 1000);
    this.heartbeat.unref();

    const prefix = this.config.redis.prefix;
    this.subscriber = createRedis(this.config, true);
    await this.subscriber.subscribe(stopChannel(prefix));
    this.subscriber.on('message', (_channel, streamId: string) => this.running.get(streamId)?.abort());

    this.connection = createRedis(this.config, true);
    this.connection.on('error', () => undefined);
    const options = {
      connection: this.connection,
      prefix: `${prefix}:bull`,
      lockDuration: this.config.inference.jobLockMs,
      stalledInterval: this.config.inference.jobStalledIntervalMs,
      maxStalledCount: 1,
    };
    // One worker per loaded model: each model's jobs wait in a queue of their own, and so do its spot checks.
    for (const modelId of this.loaded) {
      // As many jobs as the model has sequences: a new reply joins the running batch as soon as one ends.
      const concurrency = this.engine.capacity(modelId).sequences;
      if (!verifyOnly)
        this.workers.push(
          new Worker<StoredJob<'inference.generate'>>(
            inferenceQueue(modelId),
            (job) => withRequestId(job.data.requestId, () => this.process(job, this.seal.open('inference.generate', job.data))),
            {
              ...options,
              concurrency,
            },
          ),
        );
      this.workers.push(
        new Worker<StoredJob<'inference.verify'>>(
          verifyQueue(modelId),
          (job) => withRequestId(job.data.requestId, () => this.verify(this.seal.open('inference.verify', job.data))),
          { ...options, concurrency },
        ),
      );
    }
    for (const worker of this.workers) worker.on('error', (err) => this.logger.warn(err.message));
    this.logger.log(
      `Node ${this.nodeId} serving ${this.loaded.join(', ')}${verifyOnly ? ' (spot checks only)' : ''} with ${threads} thread(s): ${bench.tokensPerSecond.toFixed(0)} tokens/s, hardware score ${score}`,
    );
  }

  /** A thin transport: the reply's rules live in RepliesService; this runs llama.cpp between its calls. */
  private async process(job: Job<StoredJob<'inference.generate'>>, data: InferenceJob): Promise<void> {
    const nodeId = this.nodeId!;
    const engine = this.engine!;
    queueWait.observe({ queue: job.queueName }, Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp) / 1000);
    // Never the prompt: which job, task and model only.
    const fields = { job_id: job.id, task_id: data.taskId, model: data.modelId };
    this.logger.log({ msg: `Job ${job.id} started`, ...fields });
    if (!(await this.replies.begin(data, nodeId))) return;
    const run: ReplyRun = { kind: 'worker' };
    if (data.embed) return this.embed(job, data, run);
    // A raw prompt counts as its text alone; chat turns as the model's template formats them.
    const input = generationInput(data);
    const promptTokens =
      input.prompt !== undefined ? engine.countTextTokens(data.modelId, input.prompt) : engine.countTokens(data.modelId, input.messages);
    const budget = await this.replies.budget(data, nodeId, promptTokens);
    if (!budget) return;

    const send = (chunk: string) => {
      run.firstTokenAt ??= Date.now();
      this.replies.tokens(data, chunk).catch((err: Error) => this.logger.warn(`Stream write failed: ${err.message}`));
    };
    const abort = new AbortController();
    this.running.set(data.streamId, abort);
    // A stop asked before the job ran (also one that raced the start request) is honoured at once.
    if (await this.replies.stopRequested(data)) abort.abort();
    try {
      const result = await generateReply(
        (request) => engine.generate(data.modelId, request),
        // The reply's sampling as it was asked, cut to what the hold pays for.
        { ...input, sampling: { ...data.params, max_tokens: budget.maxTokens }, signal: abort.signal },
        send,
      );
      await this.replies.complete(data, nodeId, result, result.stopReason, result.durationMs, run, result.logprobs);
      const { completionTokens: tokens, stopReason: stop_reason } = result;
      const ms = Math.round(result.durationMs);
      this.logger.log({ msg: `Job ${job.id} done: ${tokens} tokens (${stop_reason}) in ${ms} ms`, ...fields, tokens, stop_reason, ms });
    } catch (err) {
      this.logger.error(`Job ${job.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      await this.replies.fail(data, nodeId, 'INTERNAL_ERROR', promptTokens, run);
    } finally {
      this.running.delete(data.streamId);
    }
  }

  /** An embedding job: the vectors computed here, handed to the inference core, which checks and settles them. */
  private async embed(job: Job<StoredJob<'inference.generate'>>, data: InferenceJob, run: ReplyRun): Promise<void> {
    const started = performance.now();
    try {
      const vectors = await this.engine!.embed(data.modelId, data.embed!.input);
      run.firstTokenAt = Date.now();
      const problem = await this.embeddings.finish(data, this.nodeId!, vectors, performance.now() - started, run);
      this.logger.log({
        msg: `Job ${job.id} done: ${vectors.length} embeddings${problem ? ` (refused: ${problem})` : ''}`,
        job_id: job.id,
        model: data.modelId,
      });
    } catch (err) {
      this.logger.error(`Job ${job.id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      await this.embeddings.fail(data, this.nodeId!, run);
    }
  }

  /**
   * A verification: an embedding job's sample computed again, or a reply's or a model challenge's committed tokens
   * recomputed here (a trusted generator), and judged.
   */
  private async verify(data: VerifyJob): Promise<void> {
    const { kind, checkId, modelId, params } = data;
    const engine = this.engine!;
    if (data.embeddings) {
      const verdict = await this.spotChecks.verifyEmbeddings(data, await engine.embed(modelId, data.embeddings.texts));
      if (verdict) this.logger.log(`Verified embeddings ${checkId}: ${verdict.passed ? 'passed' : `failed (${verdict.why})`}`);
      return;
    }
    const input = { ...generationInput(data), sampling: params };
    const verdict = await this.spotChecks.verifyByRecomputation(
      data,
      (tokens) => engine.recompute(modelId, input, tokens, VERIFY_TOP),
      (tokens, text, top) => engine.score(modelId, input, tokens, text, top),
    );
    if (verdict)
      this.logger.log(`Verified ${kind} ${checkId}: ${verdict.passed ? 'passed' : `failed (${verdict.why})`} (${verdict.nodeTokens} tokens)`);
  }

  /** SIGTERM: running jobs may finish within the shutdown budget; after it they go back to the queue. */
  async onApplicationShutdown(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    // No longer a trusted generator: checks go elsewhere at once (another worker sets its keys again at its next beat).
    for (const m of this.loaded) await this.redis.del(verifierKey(this.config.redis.prefix, m)).catch(() => undefined);
    if (this.workers.length) {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.config.shutdownTimeoutMs).unref());
      await Promise.race([Promise.all(this.workers.map((w) => w.close())), timeout]);
      for (const abort of this.running.values()) abort.abort();
      await Promise.all(this.workers.map((w) => w.close(true).catch(() => undefined)));
    }
    if (this.nodeId) await this.nodes.stopped(this.nodeId).catch(() => undefined);
    await this.subscriber?.quit().catch(() => undefined);
    await this.connection?.quit().catch(() => undefined);
    await this.engine?.dispose();
  }
}
