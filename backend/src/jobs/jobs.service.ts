import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { createRedis } from '../redis/redis.module';
import { currentRequestId } from '../observability/logging';
import { JobSeal } from './job-seal';
import { AnyQueue, JOB_QUEUES, JobName, JobPayloads } from './jobs';

/** Where every enqueue is announced (the queue's name), so a node waiting for a job wakes at once. */
export const jobsAddedChannel = (prefix: string) => `${prefix}:jobs:added`;
/** What jobsAddedChannel carries when a node's own state changed (its models, slots or pause), not a queue's. */
export const nodeChangedSignal = (nodeId: string) => `node:${nodeId}`;

const DEFAULTS: Partial<Record<JobName, JobsOptions>> = {
  // A sent mail is gone from Redis at once (only a retry needs it); a failed one is kept a week for the operator.
  'mail.send': { attempts: 5, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } },
  // A reply is generated once; a worker that dies mid-job is detected by the stall check and the job retried.
  'inference.generate': { attempts: 2, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
  'inference.verify': { attempts: 2, removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } },
};

/** The one producer of jobs. Only jobs/ and the worker processors import bullmq. */
@Injectable()
export class JobsService implements OnApplicationShutdown {
  private readonly queues = new Map<AnyQueue, Queue>();
  private readonly connection;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly seal: JobSeal,
  ) {
    this.connection = createRedis(config, true);
    this.connection.on('error', () => undefined);
  }

  queue(name: AnyQueue): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: `${this.config.redis.prefix}:bull` });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Every job carries the id of the request that enqueued it (see observability/logging), unless it names one; what
   * people typed or were sent goes in sealed (JobSeal), so the queue dashboard and Redis never hold it in clear.
   */
  async enqueue<N extends JobName>(name: N, data: JobPayloads[N], opts: JobsOptions = {}): Promise<string> {
    const queue = JOB_QUEUES[name](data);
    const requestId = data.requestId ?? currentRequestId();
    const stored = this.seal.seal(name, requestId ? { ...data, requestId } : data);
    const job = await this.queue(queue).add(name, stored, { ...DEFAULTS[name], ...opts });
    await this.announce(queue);
    return job.id!;
  }

  /** Tells the processes waiting for jobs of this queue that one is there (a new job, or one given back). */
  async announce(queue: AnyQueue): Promise<void> {
    await this.connection.publish(jobsAddedChannel(this.config.redis.prefix), queue);
  }

  /** Tells the processes holding this node's waiting claims that what they wait on changed: they look again. */
  async announceNode(nodeId: string): Promise<void> {
    await this.connection.publish(jobsAddedChannel(this.config.redis.prefix), nodeChangedSignal(nodeId));
  }

  /** A job's state ('waiting', 'active', 'failed', …), or 'missing' when there is no such job (never queued, or removed). */
  async state(name: AnyQueue, jobId: string): Promise<string> {
    const job = await this.queue(name).getJob(jobId);
    return job ? await job.getState() : 'missing';
  }

  /** Removes a job that no worker holds, so it never runs; one being processed is left to its worker (and lock). */
  async discard(name: AnyQueue, jobId: string): Promise<void> {
    await this.queue(name)
      .remove(jobId)
      .catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
