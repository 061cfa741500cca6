import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { JobSeal, type StoredJob } from '../jobs/job-seal';
import { QueueName } from '../jobs/jobs';
import { MailService } from '../mail/mail.service';
import { createRedis } from '../redis/redis.module';
import { withRequestId } from '../observability/logging';

/** Sends queued e-mail; a failed send is retried by BullMQ with backoff. */
@Injectable()
export class MailProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MailWorker');
  private worker: Worker | undefined;
  private readonly connection;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mail: MailService,
    private readonly seal: JobSeal,
  ) {
    this.connection = createRedis(this.config, true);
    this.connection.on('error', () => undefined);
  }

  onApplicationBootstrap(): void {
    this.worker = new Worker<StoredJob<'mail.send'>>(
      QueueName.Mail,
      (job: Job<StoredJob<'mail.send'>>) =>
        withRequestId(job.data.requestId, async () => {
          await this.mail.send(this.seal.open('mail.send', job.data));
          // The job's id only: its address and subject are personal (a sign-up attempt says an account exists).
          this.logger.log(`Sent mail job ${job.id}`);
        }),
      { connection: this.connection, prefix: `${this.config.redis.prefix}:bull`, concurrency: 4 },
    );
    this.worker.on('failed', (job, err) => this.logger.warn(`Mail job ${job?.id} failed: ${err.message}`));
    this.worker.on('error', (err) => this.logger.warn(err.message));
  }

  /** Lets the jobs in hand finish, within the shutdown budget; unfinished ones go back to the queue. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.worker) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.config.shutdownTimeoutMs).unref());
    await Promise.race([this.worker.close(), timeout]);
    await this.worker.close(true).catch(() => undefined);
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
