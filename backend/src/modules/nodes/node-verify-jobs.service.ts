/** `verify` jobs: a check of another owner's node's work (PeerReplaysService), handed to a node and answered by it. */
import { ConflictException, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { generationInput } from '../../jobs/generation-input';
import { REDIS } from '../../redis/redis.module';
import { VERIFY_TOP } from '@glob/engine/verification';
import { PeerReplaysService } from '../trust/peer-replays.service';
import { NodeJobStore } from './node-job-store';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';

/** The id of a job that replays another node's work for a check (its text goes to the check, not to a requester). */
const REPLAY_JOB = 'chk_';

type NodeJobEvent = Schemas['NodeJobEvent'];

/**
 * A peer's replay for a check travels as a node job of its own kind: it takes one of the node's slots until it is
 * answered (its recomputation), given back, or past the reply timeout; the check itself is PeerReplaysService's.
 */
@Injectable()
export class NodeVerifyJobsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly store: NodeJobStore,
    private readonly nodes: ProviderNodesRepository,
    private readonly peerReplays: PeerReplaysService,
  ) {}

  /** Whether this job id is a `verify` job's. */
  isVerifyJob(jobId: string): boolean {
    return jobId.startsWith(REPLAY_JOB);
  }

  /** A `verify` job a node holds (it expires with the reply timeout). */
  private replayKey(jobId: string): string {
    return `${this.config.redis.prefix}:node-replay:${jobId}`;
  }

  /** A check of another owner's node's work waiting for this node, as a `verify` job. */
  async replay(nodeId: string): Promise<Schemas['NodeJob'] | null> {
    const r = await this.peerReplays.next(nodeId);
    if (!r) return null;
    const jobId = `${REPLAY_JOB}${r.id}`;
    const { model_id, params } = r.job;
    await this.redis.set(this.replayKey(jobId), '1', 'EX', this.config.inference.replyTimeoutSeconds);
    await this.store.addHeld(nodeId, jobId);
    return {
      job_id: jobId,
      model_id,
      kind: 'verify',
      ...generationInput(r.job),
      params,
      tokens: this.peerReplays.tokensOf(r),
      top: VERIFY_TOP,
      lock_ms: this.config.inference.jobLockMs,
      first_token_ms: this.config.inference.nodeFirstTokenMs,
      max_bytes: 0,
    };
  }

  /** A `verify` job's events: only an `error` (it could not be run) is expected; anything else is an answer it cannot be. */
  async replayEvents(node: NodeIdentity, jobId: string, final: NodeJobEvent | null): Promise<Schemas['NodeJobAck']> {
    await this.holdsReplay(node, jobId);
    await this.endReplay(node.id, jobId, null);
    if (final?.type !== 'error') throw new ConflictException(`Job ${jobId} is a verify job: it is answered with its recomputation`);
    return { stop: false };
  }

  /** POST /api/nodes/jobs/{jobId}/recomputation: a `verify` job's answer, handed to its check. */
  async recomputationOf(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobRecomputation'>): Promise<void> {
    await this.nodes.touch(node.id);
    if (!this.isVerifyJob(jobId)) {
      // Another node's job is not this node's business (403), its own reply is answered with events (409).
      await this.store.held(node, jobId);
      throw new ConflictException(`Job ${jobId} is not a verify job`);
    }
    await this.holdsReplay(node, jobId);
    await this.endReplay(node.id, jobId, body.steps);
  }

  /** The node gives a `verify` job back: its check asks another peer, or is decided without it. */
  async giveBack(node: NodeIdentity, jobId: string): Promise<void> {
    if (!(await this.store.holds(node.id, jobId))) throw new ForbiddenException(`This node does not hold job ${jobId}`);
    return this.endReplay(node.id, jobId, null);
  }

  /** A replay not finished within the reply timeout no longer takes a slot. */
  async forgetExpired(nodeId: string, jobId: string): Promise<void> {
    if (!(await this.redis.exists(this.replayKey(jobId)))) await this.store.forget(nodeId, jobId);
  }

  private async holdsReplay(node: NodeIdentity, jobId: string): Promise<void> {
    if (!(await this.redis.exists(this.replayKey(jobId))) || !(await this.store.holds(node.id, jobId)))
      throw new ForbiddenException(`This node does not hold job ${jobId}`);
  }

  async endReplay(nodeId: string, jobId: string, answer: string | null): Promise<void> {
    await this.redis.del(this.replayKey(jobId));
    await this.store.forget(nodeId, jobId);
    await this.peerReplays.answered(jobId.slice(REPLAY_JOB.length), nodeId, answer);
  }
}
