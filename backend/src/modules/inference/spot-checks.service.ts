import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions, type Tx } from '../../database/repository';
import type { InferenceJob } from '../../jobs/jobs';
import { JobsService } from '../../jobs/jobs.service';
import { REDIS } from '../../redis/redis.module';
import { NotificationsService } from '../notifications/notifications.service';
import { toGlob } from '../wallet/units';
import { judgeReplay, type SpotCheckVerdict } from './spot-check-verdict';
import { SpotChecksRepository, type ChallengeBody } from './spot-checks.repository';

export const FAILED_SPOT_CHECK =
  "The platform paused this node: a spot check replayed one of its replies and the model's own output for the same request was different.";
export const FAILED_PROOF = "The platform paused this node: its answer to a model challenge was not the model's own output.";
const SPOT_CHECK_NOTICE = "a spot check replayed one of its replies and the model's own output for the same request was different.";
const PROOF_NOTICE = (modelId: string) => `its answer to the challenge for ${modelId} was not the model's own output.`;

/**
 * A reply's tokens for comparison. llama-server (a pool's coordinator) keeps the space its first token decodes to and
 * node-llama-cpp drops it: the same reply either way, so a leading space never counts.
 */
const tokensOf = (text: string, tokenize: (text: string) => number[]) => tokenize(text.trimStart());

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
 * paused, its unpaid rewards are withheld, and its owner is told why.
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
  ) {}

  /** Whether this reply is checked: queued for a trusted generator when one serves the model. */
  async afterReply(r: ServedReply): Promise<boolean> {
    if (!r.text || r.completionTokens < 1) return false;
    const { spotCheckFirst, spotCheckPercent } = this.config.inference;
    const trusted = (await this.checks.passedSinceTrusted(r.nodeId)) < spotCheckFirst;
    if (!trusted && Math.random() * 100 >= spotCheckPercent) return false;
    if (!(await this.trusted(r.job.modelId))) {
      this.logger.debug(`No trusted generator for ${r.job.modelId}: reply ${r.job.streamId} is not checked`);
      return false;
    }
    const checkId = await this.checks.create({ taskId: r.taskId, nodeId: r.nodeId, modelId: r.job.modelId, nodeText: r.text });
    await this.jobs.enqueue('inference.verify', {
      kind: 'reply',
      checkId,
      modelId: r.job.modelId,
      messages: r.job.messages,
      params: { temperature: r.job.params.temperature, topP: r.job.params.topP, seed: r.seed, maxTokens: r.completionTokens },
    });
    return true;
  }

  /**
   * The trusted generator's replay is in: the node's reply is judged against it token by token (with the generator's
   * tokenizer); a failure pauses the node, withholds its unpaid rewards and tells its owner. Answers the verdict
   * (null when the check was already judged).
   */
  async judge(checkId: string, replayText: string, tokenize: (text: string) => number[]): Promise<SpotCheckVerdict | null> {
    return this.transactions.run(async (tx) => {
      const check = await this.checks.lockPending(checkId, tx);
      if (!check) return null;
      const verdict = judgeReplay(tokensOf(replayText, tokenize), tokensOf(check.node_text, tokenize));
      await this.checks.judge(checkId, verdict.passed, verdict.matched, verdict.nodeTokens, tx);
      if (verdict.passed) {
        await this.checks.countPass(check.node_id, tx);
        return verdict;
      }
      this.logger.warn(
        `Node ${check.node_id} failed a spot check of task ${check.task_id}: ${verdict.matched} of ${verdict.required} required tokens matched`,
      );
      await this.penalize(check.node_id, FAILED_SPOT_CHECK, SPOT_CHECK_NOTICE, { task_id: check.task_id }, tx);
      return verdict;
    });
  }

  /** Whether a trusted generator can replay this model's generations now. */
  async trusted(modelId: string): Promise<boolean> {
    return (await this.redis.exists(verifierKey(this.config.redis.prefix, modelId))) > 0;
  }

  /** The generation part of a model challenge goes to a trusted generator. */
  async checkProof(proofId: string, modelId: string, challenge: ChallengeBody): Promise<void> {
    const { messages, params } = challenge;
    await this.jobs.enqueue('inference.verify', {
      kind: 'proof',
      checkId: proofId,
      modelId,
      messages,
      params: { temperature: params.temperature, topP: params.top_p, seed: params.seed, maxTokens: params.max_tokens },
    });
  }

  /**
   * The trusted generator's answer to a model challenge: the node's must agree with it as a reply does in a spot
   * check, or the node is paused like one that failed a spot check.
   */
  async judgeProof(proofId: string, replayText: string, tokenize: (text: string) => number[]): Promise<SpotCheckVerdict | null> {
    return this.transactions.run(async (tx) => {
      const proof = await this.checks.lockProof(proofId, 'checking', tx);
      if (!proof) return null;
      const verdict = judgeReplay(tokensOf(replayText, tokenize), tokensOf(proof.node_text ?? '', tokenize));
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
