import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { queueWait } from '../observability/metrics';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { createRedis } from '../redis/redis.module';
import { JobSeal, type StoredJob } from './job-seal';
import type { InferenceJob, InferenceQueue } from './jobs';
import { JobsService } from './jobs.service';

type Stored = StoredJob<'inference.generate'>;

/** A job taken on someone else's behalf: the queue it came from and the lock token that holds it. */
export interface Lease {
  jobId: string;
  queue: InferenceQueue;
  token: string;
}

/**
 * Inference jobs taken for remote nodes with BullMQ's manual processing: one worker without a processor per
 * model queue. The node renews the lock through the API (heartbeats, events); one that goes silent loses it to
 * the stalled-job check these workers run, exactly as a killed in-cluster worker does, and the job moves on.
 */
@Injectable()
export class JobLeases implements OnApplicationShutdown {
  private readonly logger = new Logger('JobLeases');
  private readonly workers = new Map<InferenceQueue, Worker<Stored>>();
  private connection: ReturnType<typeof createRedis> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly seal: JobSeal,
  ) {}

  /** Starts the workers (and so the stalled-job checks) of these queues. */
  watch(queues: InferenceQueue[]): void {
    for (const q of queues) this.worker(q);
  }

  private worker(queue: InferenceQueue): Worker<Stored> {
    let worker = this.workers.get(queue);
    if (worker) return worker;
    if (!this.connection) {
      this.connection = createRedis(this.config, true);
      this.connection.on('error', () => undefined);
    }
    const { jobLockMs, jobStalledIntervalMs } = this.config.inference;
    worker = new Worker<Stored>(queue, null, {
      connection: this.connection,
      prefix: `${this.config.redis.prefix}:bull`,
      lockDuration: jobLockMs,
      stalledInterval: jobStalledIntervalMs,
      maxStalledCount: 1,
      autorun: false,
    });
    worker.on('error', (err) => this.logger.warn(err.message));
    // A job whose holder lost its lock is back in the queue (or failed): announced as a new one is, so a waiting
    // claim takes it at once rather than at its next look.
    worker.on('stalled', () => void this.jobs.announce(queue).catch((err: Error) => this.logger.warn(`Announcing ${queue}: ${err.message}`)));
    worker.startStalledCheckTimer().catch((err: Error) => this.logger.warn(`Stalled check of ${queue} failed to start: ${err.message}`));
    this.workers.set(queue, worker);
    return worker;
  }

  /** The next waiting job of the queue, now locked with `token`; null when none waits. */
  async take(queue: InferenceQueue, token: string): Promise<{ lease: Lease; data: InferenceJob } | null> {
    const job = (await this.worker(queue).getNextJob(token, { block: false })) as Job<Stored> | undefined;
    if (job) queueWait.observe({ queue }, Math.max(0, Date.now() - job.timestamp) / 1000);
    return job?.id ? { lease: { jobId: job.id, queue, token }, data: this.seal.open('inference.generate', job.data) } : null;
  }

  private async job(lease: Lease): Promise<Job<Stored> | undefined> {
    return (await this.jobs.queue(lease.queue).getJob(lease.jobId)) as Job<Stored> | undefined;
  }

  /** Renews the lock and answers the job's data; null when it is no longer held with this token (it expired and moved on, or ended). */
  async renew(lease: Lease): Promise<InferenceJob | null> {
    const job = await this.job(lease);
    return job && (await job.extendLock(lease.token, this.config.inference.jobLockMs)) === 1 ? this.seal.open('inference.generate', job.data) : null;
  }

  /** The reply ended (done or error): the job is finished and never runs again. */
  async complete(lease: Lease): Promise<void> {
    const job = await this.job(lease);
    await job?.moveToCompleted('ended', lease.token, false).catch((err: Error) => this.logger.warn(`Job ${lease.jobId}: ${err.message}`));
  }

  /** The job failed for good (no retry): its reply has already ended with an error. */
  async fail(lease: Lease, message: string): Promise<void> {
    const job = await this.job(lease);
    await job
      ?.moveToFailed(new UnrecoverableError(message), lease.token, false)
      .catch((err: Error) => this.logger.warn(`Job ${lease.jobId}: ${err.message}`));
  }

  /** Back to the queue for someone else; announced, so waiting nodes see it at once. */
  async giveBack(lease: Lease): Promise<void> {
    const job = await this.job(lease);
    if (!job) return;
    await job.moveToWait(lease.token).catch((err: Error) => this.logger.warn(`Job ${lease.jobId}: ${err.message}`));
    await this.jobs.announce(lease.queue);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.close().catch(() => undefined)));
    await this.connection?.quit().catch(() => undefined);
  }
}
