import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/repository';
import { comparable, judgeReplay, PEER_ACTIVE_SECONDS, REPLAY_WAIT_SECONDS, type SpotCheckVerdict } from './spot-check-verdict';
import { SpotChecksRepository, type PeerReplayRow, type ReplaySubject } from './spot-checks.repository';
import { SpotChecksService } from './spot-checks.service';
import { TokenCounter } from '../inference/token-counter';

/** Replays one check may take: the first peer's, a tie-breaker's, and one more when a peer could not answer. */
const MAX_REPLAYS = 3;

const subjectOf = (r: PeerReplayRow): ReplaySubject => (r.spot_check_id ? { spotCheckId: r.spot_check_id } : { proofId: r.proof_id! });

/**
 * Checks by peers, where no trusted generator serves a model: the first node of another owner that proved the model
 * and asks for work replays the request (a reply's, or a challenge's generation) with the same sampling and seed.
 * When it agrees, the check passes; when it disagrees, a third owner's node breaks the tie, and whichever of the two
 * it contradicts has failed: the checked node (as with a trusted generator) or the first peer. With no third owner's
 * node, or three answers that all differ, the check is inconclusive and nobody is penalized; a replay nobody takes
 * within REPLAY_WAIT_SECONDS is given up (a challenge then stands on its file proof). Peers replay for free: it is a
 * few percent of their work, and the same checks keep their own rewards safe.
 */
@Injectable()
export class PeerReplaysService {
  private readonly logger = new Logger('PeerReplays');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checks: SpotChecksRepository,
    private readonly spotChecks: SpotChecksService,
    private readonly counter: TokenCounter,
    private readonly transactions: Transactions,
  ) {}

  /** The next replay this node may run, now claimed by it. */
  next(nodeId: string): Promise<PeerReplayRow | undefined> {
    return this.checks.claimReplay(nodeId);
  }

  /**
   * A peer's replay is in: its text, or null when it could not run it. The check is decided as soon as the answers
   * allow. False when the node holds no such replay.
   */
  async answered(replayId: string, nodeId: string, text: string | null): Promise<boolean> {
    const replay = await this.transactions.run(async (tx) => {
      const r = await this.checks.lockClaimedReplay(replayId, nodeId, tx);
      if (r) await this.checks.finishReplay(r.id, text, tx);
      return r;
    });
    if (!replay) return false;
    await this.decide(replay);
    return true;
  }

  /** Replays nobody took in time, or taken and never answered, are given up; their checks are decided without them. */
  async expire(): Promise<void> {
    for (const r of await this.checks.expireReplays(REPLAY_WAIT_SECONDS, this.config.inference.replyTimeoutSeconds)) await this.decide(r);
  }

  private async decide(replay: PeerReplayRow): Promise<void> {
    const subject = subjectOf(replay);
    const modelId = replay.job.model_id;
    const target = 'spotCheckId' in subject ? await this.checks.spotCheck(subject.spotCheckId) : await this.checks.proofById(subject.proofId);
    if (!target || (target.status !== 'pending' && target.status !== 'checking')) return;
    const replays = await this.checks.replaysOf(subject);
    if (replays.some((r) => r.status === 'waiting' || r.status === 'claimed')) return;
    const answers = replays.filter((r) => r.status === 'done' && r.text !== null);
    const tokens = (text: string) => this.counter.tokenize(modelId, comparable(text));
    const nodeTokens = await tokens(target.node_text ?? '');
    const [first, second] = answers;
    if (first && !second) {
      const verdict = judgeReplay(await tokens(first.text!), nodeTokens);
      if (verdict.passed) return this.conclude(subject, verdict);
    }
    if (!second) {
      // Nobody took it: no peer is there after all.
      if (!first && replays.at(-1)!.status === 'expired') return this.unanswered(subject);
      // The first peer disagrees (or could not run it): another owner's node decides.
      const exclude = [target.node_id, ...replays.flatMap((r) => (r.node_id ? [r.node_id] : []))];
      if (replays.length < MAX_REPLAYS && (await this.checks.peerAvailable(modelId, exclude, PEER_ACTIVE_SECONDS))) {
        return this.checks.addReplay(subject, exclude, replay.job);
      }
      return this.inconclusive(subject, 'no other owner’s node could break the tie');
    }
    const secondTokens = await tokens(second.text!);
    const nodeVerdict = judgeReplay(secondTokens, nodeTokens);
    const peersAgree = judgeReplay(secondTokens, await tokens(first!.text!)).passed;
    if (nodeVerdict.passed) {
      await this.conclude(subject, nodeVerdict);
      if (!peersAgree)
        await this.spotChecks.penalizeReplayer(first!.node_id!, { check_id: 'spotCheckId' in subject ? subject.spotCheckId : subject.proofId });
    } else if (peersAgree) {
      await this.conclude(subject, nodeVerdict);
    } else {
      await this.inconclusive(subject, 'three owners’ nodes answered three different ways');
    }
  }

  private async conclude(subject: ReplaySubject, verdict: SpotCheckVerdict): Promise<void> {
    if ('spotCheckId' in subject) await this.spotChecks.concludeCheck(subject.spotCheckId, () => verdict);
    else await this.spotChecks.concludeProof(subject.proofId, () => verdict);
  }

  /** No peer took the replay: a challenge stands on its file proof (as for a model's first node); a check is not made. */
  private async unanswered(subject: ReplaySubject): Promise<void> {
    await this.transactions.run(async (tx) => {
      if ('spotCheckId' in subject) return this.checks.setInconclusive(subject.spotCheckId, tx);
      const proof = await this.checks.lockProof(subject.proofId, 'checking', tx);
      if (proof) await this.checks.prove(proof.id, 'unchecked', proof.node_text ?? '', tx);
    });
  }

  private async inconclusive(subject: ReplaySubject, why: string): Promise<void> {
    this.logger.warn(`Check ${'spotCheckId' in subject ? subject.spotCheckId : subject.proofId} is inconclusive: ${why}`);
    await this.transactions.run(async (tx) => {
      if ('spotCheckId' in subject) await this.checks.setInconclusive(subject.spotCheckId, tx);
      // The node is not penalized; its next heartbeat gets a new challenge.
      else if (await this.checks.lockProof(subject.proofId, 'checking', tx))
        await this.checks.failProof(subject.proofId, `generation: inconclusive, ${why}`, tx);
    });
  }
}
