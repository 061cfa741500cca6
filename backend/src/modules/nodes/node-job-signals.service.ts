/** What reaches node jobs from outside a node's calls: jobs announced, stops, and the sweeps of what came due. */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { JobLeases } from '../../jobs/job-leases';
import { inferenceQueue } from '../../jobs/jobs';
import { jobsAddedChannel } from '../../jobs/jobs.service';
import { stopChannel } from '../../jobs/stop-signals';
import { createRedis } from '../../redis/redis.module';
import { PeerReplaysService } from '../trust/peer-replays.service';
import { StoppedRepliesService } from '../trust/stopped-replies.service';
import { NodeClaimsService } from './node-claims.service';
import { NodeJobEventsService } from './node-job-events.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { ProviderNodesRepository } from './provider-nodes.repository';

/**
 * One subscription per API process: a job announced on a queue wakes the claims waiting for it, a stop ends a remote
 * reply at once (NodeJobEventsService.endNow). A timer sweeps what came due: first-token deadlines, peer replays
 * nobody answered, stopped replies whose node never committed.
 */
@Injectable()
export class NodeJobSignals implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NodeJobs');
  private subscriber: Redis | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly leases: JobLeases,
    private readonly nodes: ProviderNodesRepository,
    private readonly claims: NodeClaimsService,
    private readonly events: NodeJobEventsService,
    private readonly holds: NodeJobHoldsService,
    private readonly peerReplays: PeerReplaysService,
    private readonly stoppedReplies: StoppedRepliesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // The stalled-job check of every queue a remote node may hold a job of runs here (and starts with a queue's first
    // claim), so a silent node loses its job even when no in-cluster worker serves that model.
    this.leases.watch(this.claims.catalogModels(await this.nodes.remoteModels()).map(inferenceQueue));
    this.subscriber = createRedis(this.config, true);
    this.subscriber.on('error', () => undefined);
    const added = jobsAddedChannel(this.config.redis.prefix);
    const stops = stopChannel(this.config.redis.prefix);
    await this.subscriber.subscribe(added, stops);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === stops) {
        this.events.endNow(message).catch((err: Error) => this.logger.warn(`Stopping job ${message}: ${err.message}`));
        return;
      }
      this.claims.wake(message);
    });
    const every = Math.min(1_000, Math.max(100, Math.floor(this.config.inference.nodeFirstTokenMs / 4)));
    this.deadlineTimer = setInterval(() => {
      this.holds.missedDeadlines().catch((err: Error) => this.logger.warn(`First-token check failed: ${err.message}`));
      this.peerReplays.expire().catch((err: Error) => this.logger.warn(`Replay expiry failed: ${err.message}`));
      this.stoppedReplies.uncommittedStops().catch((err: Error) => this.logger.warn(`Stopped-reply check failed: ${err.message}`));
    }, every);
    this.deadlineTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    this.claims.wakeAll();
    await this.subscriber?.quit().catch(() => undefined);
  }
}
