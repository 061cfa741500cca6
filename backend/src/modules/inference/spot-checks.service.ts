import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions, type Tx } from '../../database/repository';
import type { InferenceJob } from '../../jobs/jobs';
import { generationInput } from '../../jobs/generation-input';
import { JobsService } from '../../jobs/jobs.service';
import { REDIS } from '../../redis/redis.module';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';
import { comparable, judgeReplay, PEER_ACTIVE_SECONDS, type SpotCheckVerdict } from './spot-check-verdict';
import { SpotChecksRepository, type ChallengeBody, type ReplayJob } from './spot-checks.repository';
import { TasksRepository } from './tasks.repository';

export const FAILED_SPOT_CHECK =
  "The platform paused this node: a spot check replayed one of its replies and the model's own output for the same request was different.";
export const FAILED_PROOF = "The platform paused this node: its answer to a model challenge was not the model's own output.";
export const FAILED_REPLAY = "The platform paused this node: its replay of another node's work, for a check, was not the model's own output.";
const REPLAY_NOTICE = "its replay of another node's work, for a check, was not the model's own output.";
const SPOT_CHECK_NOTICE = "a spot check replayed one of its replies and the model's own output for the same request was different.";
const PROOF_NOTICE = (modelId: string) => `its answer to the challenge for ${modelId} was not the model's own output.`;

const tokensOf = (text: string, tokenize: (text: string) => number[]) => tokenize(comparable(text));

/** Where a trusted generator says it can replay a model's replies (kept alive by its heartbeats). */
export const verifierKey = (prefix: string, modelId: string) => `${prefix}:verifier:${modelId}`;

/** A remote node's finished reply, as the platform relayed it, and how it was asked for. */
export interface ServedReply {
  taskId: string;
  nodeId: string;
  job: InferenceJob;
  /** The seed the node was given (every remote job has one, so that it can be replayed). */
  seed: number;
  text: string;
  completionTokens: number;
}

/**
 * Spot checks of remote nodes' work: every one of a node's first SPOT_CHECK_FIRST replies (after pairing, and again
 * after its owner resumes it), then SPOT_CHECK_PERCENT of them, are replayed by a trusted generator (an in-cluster
 * worker) with the same prompt, sampling and seed, and compared token by token (judgeReplay). A node that fails is
 * paused, its unpaid rewards are withheld, its owner is told why, and the checked reply's requester is refunded.
 */
@Injectable()
export class SpotChecksService {
  private readonly logger = new Logger('SpotChecks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly checks: SpotChecksRepository,
    private readonly jobs: JobsService,
    private readonly transactions: Transactions,
    private readonly notifications: NotificationsService,
    private readonly ledger: LedgerService,
    private readonly tasks: TasksRepository,
  ) {}

  /**
   * Whether this reply is checked: replayed by a trusted generator when one serves the model, otherwise by another
   * owner's node that has proven it (see PeerReplaysService); unchecked when neither is there.
   */
  async afterReply(r: ServedReply): Promise<boolean> {
    if (!r.text || r.completionTokens < 1) return false;
    const { spotCheckFirst, spotCheckPercent } = this.config.inference;
    const trusted = (await this.checks.passedSinceTrusted(r.nodeId)) < spotCheckFirst;
    if (!trusted && Math.random() * 100 >= spotCheckPercent) return false;
    const job: ReplayJob = {
      model_id: r.job.modelId,
      ...generationInput(r.job),
      params: {
        temperature: r.job.params.temperature,
        top_p: r.job.params.topP,
        seed: r.seed,
        max_tokens: r.completionTokens,
        ...(r.job.params.jsonSchema ? { json_schema: JSON.stringify(r.job.params.jsonSchema) } : {}),
      },
    };
    const check = { taskId: r.taskId, nodeId: r.nodeId, modelId: r.job.modelId, nodeText: r.text };
    if (await this.trusted(r.job.modelId)) {
      await this.enqueueReplay('reply', await this.checks.create(check), job);
      return true;
    }
    if (!(await this.checks.peerAvailable(r.job.modelId, [r.nodeId], PEER_ACTIVE_SECONDS))) {
      this.logger.debug(`Neither a trusted generator nor another owner's node serves ${r.job.modelId}: reply ${r.job.streamId} is not checked`);
      return false;
    }
    await this.transactions.run(async (tx) => this.checks.addReplay({ spotCheckId: await this.checks.create(check, tx) }, [r.nodeId], job, tx));
    return true;
  }

  /**
   * The trusted generator's replay is in: the node's reply is judged against it token by token (with the generator's
   * tokenizer). Answers the verdict (null when the check was already judged).
   */
  judge(checkId: string, replayText: string, tokenize: (text: string) => number[]): Promise<SpotCheckVerdict | null> {
    return this.concludeCheck(checkId, (nodeText) => judgeReplay(tokensOf(replayText, tokenize), tokensOf(nodeText, tokenize)));
  }

  /**
   * Applies the verdict on a pending spot check: a failure pauses the node, withholds its unpaid rewards, tells its
   * owner and refunds the reply's requester. Null when the check was already judged.
   */
  async concludeCheck(checkId: string, verdictOf: (nodeText: string) => SpotCheckVerdict): Promise<SpotCheckVerdict | null> {
    return this.transactions.run(async (tx) => {
      const check = await this.checks.lockPending(checkId, tx);
      if (!check) return null;
      const verdict = verdictOf(check.node_text);
      await this.checks.judge(checkId, verdict.passed, verdict.matched, verdict.nodeTokens, tx);
      if (verdict.passed) {
        await this.checks.countPass(check.node_id, tx);
        return verdict;
      }
      this.logger.warn(
        `Node ${check.node_id} failed a spot check of task ${check.task_id}: ${verdict.matched} of ${verdict.required} required tokens matched`,
      );
      await this.penalize(check.node_id, FAILED_SPOT_CHECK, SPOT_CHECK_NOTICE, { task_id: check.task_id }, tx);
      await this.refund(checkId, check.task_id, tx);
      return verdict;
    });
  }

  /** The requester of a reply that failed its check gets its charge back, and is told. */
  private async refund(checkId: string, taskId: string, tx: Tx): Promise<void> {
    const task = await this.tasks.chargeOf(taskId, tx);
    if (!task) return;
    // A reward already paid for it is not given back twice: nobody ends up with more than was paid.
    const description = `Refund of task ${taskId.slice(0, 8)}: its reply failed a spot check`;
    const refund = await this.ledger.refundCharge(task.hold_id, taskId, description, Number(task.rewarded), tx);
    if (!refund) return;
    await this.checks.setRefund(checkId, refund.transactionId, tx);
    await this.notifications.create(
      task.user_id,
      'system',
      'Reply refunded',
      `A reply you were sent did not pass the platform's check of the node that served it: the ${toGlob(refund.units)} GLOB it cost are back in your wallet.`,
      { task_id: taskId, amount: toGlob(refund.units) },
      tx,
    );
  }

  /** Whether a trusted generator can replay this model's generations now. */
  async trusted(modelId: string): Promise<boolean> {
    return (await this.redis.exists(verifierKey(this.config.redis.prefix, modelId))) > 0;
  }

  /** The generation part of a model challenge goes to a trusted generator. */
  async checkProof(proofId: string, modelId: string, challenge: ChallengeBody): Promise<void> {
    await this.enqueueReplay('proof', proofId, { model_id: modelId, messages: challenge.messages, params: challenge.params });
  }

  private async enqueueReplay(kind: 'reply' | 'proof', checkId: string, job: ReplayJob): Promise<void> {
    const { params } = job;
    await this.jobs.enqueue('inference.verify', {
      kind,
      checkId,
      modelId: job.model_id,
      ...generationInput(job),
      params: {
        temperature: params.temperature,
        topP: params.top_p,
        seed: params.seed,
        maxTokens: params.max_tokens,
        ...(params.json_schema ? { jsonSchema: JSON.parse(params.json_schema) as Record<string, unknown> } : {}),
      },
    });
  }

  /** The trusted generator's answer to a model challenge, judged as a spot check's replay is. */
  judgeProof(proofId: string, replayText: string, tokenize: (text: string) => number[]): Promise<SpotCheckVerdict | null> {
    return this.concludeProof(proofId, (nodeText) => judgeReplay(tokensOf(replayText, tokenize), tokensOf(nodeText, tokenize)));
  }

  /**
   * Applies the verdict on a challenge's generation: the model is proven, or the node is paused like one that failed
   * a spot check. Null when the challenge was already judged.
   */
  async concludeProof(proofId: string, verdictOf: (nodeText: string) => SpotCheckVerdict): Promise<SpotCheckVerdict | null> {
    return this.transactions.run(async (tx) => {
      const proof = await this.checks.lockProof(proofId, 'checking', tx);
      if (!proof) return null;
      const verdict = verdictOf(proof.node_text ?? '');
      if (verdict.passed) {
        await this.checks.prove(proofId, 'checked', proof.node_text ?? '', tx);
        return verdict;
      }
      await this.checks.failProof(proofId, `generation: ${verdict.matched} of ${verdict.required} tokens matched`, tx);
      this.logger.warn(`Node ${proof.node_id} failed its challenge for ${proof.model_id}: ${verdict.matched} of ${verdict.required} tokens matched`);
      await this.penalize(proof.node_id, FAILED_PROOF, PROOF_NOTICE(proof.model_id), { model_id: proof.model_id }, tx);
      return verdict;
    });
  }

  /** A peer whose replay for a check two other owners' nodes outvoted is paused like a node that failed a check. */
  penalizeReplayer(nodeId: string, subject: Record<string, unknown>): Promise<void> {
    this.logger.warn(`Node ${nodeId} replayed a check differently from two other owners' nodes`);
    return this.transactions.run((tx) => this.penalize(nodeId, FAILED_REPLAY, REPLAY_NOTICE, subject, tx));
  }

  /** Pauses the node with `reason`, withholds its unpaid rewards and tells its owner. */
  private async penalize(nodeId: string, reason: string, notice: string, data: Record<string, unknown>, tx: Tx): Promise<void> {
    const { ownerId, name, withheldUnits } = await this.checks.penalize(nodeId, reason, tx);
    if (!ownerId) return;
    await this.notifications.create(
      ownerId,
      'system',
      'Node paused',
      `Your node ${name} was paused: ${notice} Its unpaid rewards (${toGlob(withheldUnits)} GLOB) are withheld.`,
      { node_id: nodeId, withheld: toGlob(withheldUnits), ...data },
      tx,
    );
  }
}
