import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { inferenceQueue } from '../../jobs/jobs';
import { JobsService } from '../../jobs/jobs.service';
import { REDIS } from '../../redis/redis.module';
import { NodesRepository } from './nodes.repository';
import { stopChannel } from '../../jobs/stop-signals';
import { StreamEvent, TokenStream } from './streams';
import { TasksRepository, type OpenTask } from './tasks.repository';
import { TasksService } from './tasks.service';

type ErrorCode = Extract<StreamEvent, { type: 'error' }>['code'];

export const REAPED: Record<'WORKER_FAILED' | 'TIMEOUT' | 'MODEL_UNAVAILABLE', string> = {
  WORKER_FAILED: 'The node generating this reply stopped. Please try again.',
  TIMEOUT: 'This reply took too long and was stopped. Please try again.',
  MODEL_UNAVAILABLE: 'No node is serving this model right now. Please try again later.',
};

/** A task just queued has no job for a moment (the row is written first): it is left alone this long. */
const GRACE_SECONDS = 5;

/**
 * Every reply ends. Periodically (one process at a time, by a Redis lock), and whenever a reader's stream has
 * been silent for the job lock time, this ends the replies that cannot end by themselves: their job failed
 * (e.g. stalled past its limit), vanished, or waits for a model no live node serves; their node stopped while
 * generating; or they outlived the reply timeout. Each gets a final `error` event, its hold released (a reply
 * that did not complete costs nothing), its conversation the partial reply, and its job is taken off the queue.
 */
@Injectable()
export class ReplyReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Reaper');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly openTasks: TasksRepository,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly jobs: JobsService,
    private readonly nodes: NodesRepository,
    private readonly tasks: TasksService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((err: Error) => this.logger.warn(`Sweep failed: ${err.message}`));
    }, this.config.inference.reaperIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Checks every open task (at most one process per interval); returns how many it ended. */
  async sweep(): Promise<number> {
    const lock = `${this.config.redis.prefix}:reaper-lock`;
    if (!(await this.redis.set(lock, '1', 'PX', this.config.inference.reaperIntervalMs, 'NX'))) return 0;
    let reaped = 0;
    for (const task of await this.openTasks.open(GRACE_SECONDS, null)) {
      // One task that cannot be checked or ended must not keep the others open.
      try {
        if (await this.check(task)) reaped++;
      } catch (err) {
        this.logger.error(`Checking reply ${task.stream_id} failed: ${(err as Error).message}`);
      }
    }
    return reaped;
  }

  /** Checks one stream's task now (a reader found it silent); true when it was ended. */
  async checkStream(streamId: string): Promise<boolean> {
    const [task] = await this.openTasks.open(GRACE_SECONDS, streamId);
    return task ? this.check(task) : false;
  }

  private async check(task: OpenTask): Promise<boolean> {
    const code = await this.verdict(task);
    return code ? this.reap(task, code) : false;
  }

  /** Why this task cannot end by itself, or null while it still can. */
  private async verdict(task: OpenTask): Promise<keyof typeof REAPED | null> {
    if (task.expired) return 'TIMEOUT';
    const state = await this.jobs.state(inferenceQueue(task.model_id), task.stream_id);
    if (state === 'missing' || state === 'failed' || state === 'completed') return 'WORKER_FAILED';
    if (state === 'active') return task.status === 'running' && !task.node_live ? 'WORKER_FAILED' : null;
    // Waiting: only worth waiting for while some live node serves the model.
    return (await this.nodes.liveModels()).get(task.model_id) ? null : task.status === 'running' ? 'WORKER_FAILED' : 'MODEL_UNAVAILABLE';
  }

  private async reap(task: OpenTask, code: keyof typeof REAPED): Promise<boolean> {
    const stream = new TokenStream(this.redis, TokenStream.key(this.config.redis.prefix, task.stream_id));
    const partial = await stream.text();
    const ended = await this.tasks.finish({
      taskId: task.id,
      nodeId: null,
      holdId: task.hold_id ?? '',
      status: 'failed',
      promptTokens: 0,
      completionTokens: 0,
      chargedUnits: 0,
      bytes: 0,
      durationMs: 0,
      stopReason: null,
      error: REAPED[code],
      difficulty: 1,
      ...(task.conversation_id ? { reply: { conversationId: task.conversation_id, content: partial, model: task.model_id } } : {}),
    });
    if (!ended) return false;
    await this.jobs.discard(inferenceQueue(task.model_id), task.stream_id);
    // A worker still generating it (cut off, or past the timeout) is told to stop.
    await this.redis.publish(stopChannel(this.config.redis.prefix), task.stream_id);
    await stream.append({ type: 'error', code: code as ErrorCode, message: REAPED[code] });
    await stream.finish(this.config.inference.streamTtlSeconds);
    this.logger.warn(`Ended reply ${task.stream_id} (${code})`);
    return true;
  }
}
