/** How long a node keeps the jobs it holds: renewed by its heartbeats, back to the queue when it lets one go or misses. */
import { Injectable, Logger } from '@nestjs/common';
import { JobLeases } from '../../jobs/job-leases';
import type { InferenceJob } from '../../jobs/jobs';
import { RepliesService } from '../inference/replies.service';
import { type Assignment, NodeJobStore, runOf } from './node-job-store';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';

/** First-token deadlines missed in a row that pause a node. */
export const MISSES_TO_PAUSE = 3;
export const SLOW_NODE = `The platform paused this node: it missed the first-token deadline of ${MISSES_TO_PAUSE} jobs in a row.`;

/**
 * A job goes back to its queue for another node (or ends at no charge, if part of the reply was sent) when its node
 * gives it back, sends no first token in time, or is revoked; a heartbeat renews the locks of the rest.
 */
@Injectable()
export class NodeJobHoldsService {
  private readonly logger = new Logger('NodeJobs');

  constructor(
    private readonly store: NodeJobStore,
    private readonly leases: JobLeases,
    private readonly replies: RepliesService,
    private readonly nodes: ProviderNodesRepository,
    private readonly verifyJobs: NodeVerifyJobsService,
  ) {}

  /**
   * Jobs whose first token did not come in time go back to the queue for another node (or end at no charge if part
   * was sent), and their node is marked slow: MISSES_TO_PAUSE misses in a row pause it. Any API process may find a
   * job due; the one whose ZREM removes it handles it.
   */
  async missedDeadlines(now = Date.now()): Promise<number> {
    const due = await this.store.dueDeadlines(now);
    let handled = 0;
    for (const jobId of due) {
      if (!(await this.store.clearDeadline(jobId))) continue;
      try {
        const a = await this.store.assignment(jobId);
        if (!a || a.firstTokenAt) continue;
        const data = await this.leases.renew(a);
        if (data) await this.handBack(a, data);
        const missed = await this.nodes.missedFirstToken(a.nodeId, MISSES_TO_PAUSE, SLOW_NODE);
        this.logger.warn(`Node ${a.nodeId} sent no first token for job ${jobId} in time (${missed} in a row)`);
        handled++;
      } catch (err) {
        this.logger.warn(`First-token deadline of job ${jobId}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return handled;
  }

  /** The node gives a job back: to the queue for another node, or ended (no charge) if part of it was sent. */
  async giveBack(node: NodeIdentity, jobId: string): Promise<void> {
    await this.nodes.touch(node.id);
    if (this.verifyJobs.isVerifyJob(jobId)) return this.verifyJobs.giveBack(node, jobId);
    const { a, data } = await this.store.held(node, jobId);
    await this.handBack(a, data);
  }

  private async handBack(a: Assignment, data: InferenceJob): Promise<void> {
    if (await this.replies.started(data)) {
      await this.replies.fail(data, a.nodeId, 'WORKER_FAILED', 0, runOf(a));
      await this.store.release(a, () => this.leases.fail(a, 'given back after part of the reply was sent'));
    } else {
      await this.store.release(a, () => this.leases.giveBack(a));
    }
  }

  /** A heartbeat renews the lock of every job the node holds; jobs it lost are forgotten. */
  async renewAll(nodeId: string): Promise<void> {
    for (const jobId of await this.store.heldJobs(nodeId)) {
      if (this.verifyJobs.isVerifyJob(jobId)) {
        await this.verifyJobs.forgetExpired(nodeId, jobId);
        continue;
      }
      const a = await this.store.assignment(jobId);
      if (!a || a.nodeId !== nodeId || !(await this.leases.renew(a))) await this.store.forget(nodeId, jobId);
    }
  }

  /** A revoked node's jobs go back to the queue (or end, if part of the reply was sent). */
  async returnAll(nodeId: string): Promise<void> {
    for (const jobId of await this.store.heldJobs(nodeId)) {
      if (this.verifyJobs.isVerifyJob(jobId)) {
        await this.verifyJobs.endReplay(nodeId, jobId, null);
        continue;
      }
      const a = await this.store.assignment(jobId);
      const data = a && a.nodeId === nodeId ? await this.leases.renew(a) : null;
      if (a && data) await this.handBack(a, data);
      else await this.store.forget(nodeId, jobId);
    }
  }
}
