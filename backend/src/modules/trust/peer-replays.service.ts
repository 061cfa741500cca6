import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Transactions } from '../../database/repository';
import { generationInput } from '../../jobs/generation-input';
import type { VerifyJob } from '../../jobs/jobs';
import { decodeCommitment, decodeSteps, type Step } from '@glob/engine/commitment';
import { REPEAT_WINDOW, sameRecomputation, VERIFY_TOP, type Recomputation } from '@glob/engine/verification';
import { PEER_ACTIVE_SECONDS, REPLAY_WAIT_SECONDS, type SpotCheckVerdict } from './spot-check-verdict';
import { SpotChecksRepository, type PeerReplayRow, type ReplayJob, type ReplaySubject } from './spot-checks.repository';
import { SpotChecksService } from './spot-checks.service';
import { TokenCounter } from '../catalog/token-counter';
import { RewardsService } from '../rewards/rewards.service';

/** Peers one check may ask: the first, a second (an audit, or a second opinion on a failure), and a tie-breaker. */
const MAX_REPLAYS = 3;

const subjectOf = (r: PeerReplayRow): ReplaySubject => (r.spot_check_id ? { spotCheckId: r.spot_check_id } : { proofId: r.proof_id! });

/** A peer's answer as the platform read it: its steps (null when they are not a recomputation of the tokens) and the verdict they give. */
interface Answer {
  replay: PeerReplayRow;
  steps: Step[] | null;
  verdict: SpotCheckVerdict | null;
}

/**
 * Checks by peers, where no trusted generator serves a model: a node of another owner and another network origin that
 * proved the model recomputes the checked tokens (a `verify` job: one teacher-forced pass) and sends its numbers; the
 * platform judges the node's claim with them exactly as a trusted generator's (the text, the stops and the pieces come
 * from the platform's own tokenizer, only the numbers from the peer).
 *
 * A peer is a stranger too. Its verification is checked as its own replies are (all of them during its probation,
 * then a random share): a second peer recomputes the same tokens and the two must agree; a failing verdict always
 * asks a second peer, so no node is suspended on one stranger's word. Two peers that agree decide; a peer whose
 * numbers two others outvote is suspended like a node whose reply is not the model's. With no other peer to ask,
 * a passing verdict stands, a failing one is inconclusive (nobody is penalized); a check nobody takes within
 * REPLAY_WAIT_SECONDS is given up (a challenge then stands on its file proof). The peers whose numbers decided a
 * reply's check are paid for it from the platform's share of the reply's charge.
 */
@Injectable()
export class PeerReplaysService {
  private readonly logger = new Logger('PeerReplays');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checks: SpotChecksRepository,
    private readonly spotChecks: SpotChecksService,
    private readonly counter: TokenCounter,
    private readonly rewards: RewardsService,
    private readonly transactions: Transactions,
  ) {}

  /** The next check this node may run, now claimed by it. */
  next(nodeId: string): Promise<PeerReplayRow | undefined> {
    return this.checks.claimReplay(nodeId);
  }

  /** The tokens a check's peer recomputes: the checked node's commitment's. */
  tokensOf(replay: PeerReplayRow): number[] {
    return (decodeCommitment(replay.job.claim.commitment) ?? []).map((s) => s.token);
  }

  /**
   * A peer's recomputation is in (base64 steps), or null when it could not run it. The check is decided as soon as the
   * answers allow. False when the node holds no such check.
   */
  async answered(replayId: string, nodeId: string, steps: string | null): Promise<boolean> {
    const replay = await this.transactions.run(async (tx) => {
      const r = await this.checks.lockClaimedReplay(replayId, nodeId, tx);
      if (r) await this.checks.finishReplay(r.id, steps, tx);
      return r;
    });
    if (!replay) return false;
    await this.decide(replay);
    return true;
  }

  /** Checks nobody took in time, or taken and never answered, are given up; their subjects are decided without them. */
  async expire(): Promise<void> {
    for (const r of await this.checks.expireReplays(REPLAY_WAIT_SECONDS, this.config.inference.replyTimeoutSeconds)) await this.decide(r);
  }

  private async decide(replay: PeerReplayRow): Promise<void> {
    const subject = subjectOf(replay);
    const target = 'spotCheckId' in subject ? await this.checks.spotCheck(subject.spotCheckId) : await this.checks.proofById(subject.proofId);
    if (!target || (target.status !== 'pending' && target.status !== 'checking')) return;
    const replays = await this.checks.replaysOf(subject);
    if (replays.some((r) => r.status === 'waiting' || r.status === 'claimed')) return;
    const answers = await Promise.all(replays.filter((r) => r.status === 'done' && r.steps !== null).map((r) => this.read(subject, r)));
    const exclude = [target.node_id, ...replays.flatMap((r) => (r.node_id ? [r.node_id] : []))];
    const askAnother = async () =>
      replays.length < MAX_REPLAYS && (await this.checks.peerAvailable(replay.job.model_id, exclude, PEER_ACTIVE_SECONDS))
        ? (await this.checks.addReplay(subject, exclude, replay.job), true)
        : false;

    // Two peers whose numbers agree decide; whoever answered otherwise is outvoted.
    const pair = answers.flatMap((a, i) =>
      answers
        .slice(i + 1)
        .filter((b) => agree(a, b))
        .map((b) => [a, b] as const),
    )[0];
    if (pair) {
      await this.conclude(subject, pair[0].verdict!);
      for (const other of answers) if (!agree(other, pair[0])) await this.outvoted(other, subject);
      return this.reward(
        subject,
        answers.filter((a) => agree(a, pair[0])),
      );
    }
    const [only] = answers;
    if (answers.length === 1 && only!.verdict?.passed) {
      // A passing verdict is audited as the peer's own work is; with nobody to audit it, it stands.
      if ((await this.spotChecks.drawn(only!.replay.node_id!)) && (await askAnother())) return;
      await this.conclude(subject, only!.verdict);
      return this.reward(subject, [only!]);
    }
    // Nobody took it: no peer is there after all. (One that took it and never answered is replaced, as one that failed.)
    const last = replays.at(-1)!;
    if (!answers.length && last.status === 'expired' && !last.node_id) return this.unanswered(subject);
    if (await askAnother()) return;
    if (!answers.length) return this.unanswered(subject);
    await this.inconclusive(subject, answers.length < 2 ? 'no other owner’s node could give a second opinion' : 'the peers’ recomputations differ');
  }

  /** A peer's answer: its steps, when they are a recomputation of the checked tokens, and the verdict they give. */
  private async read(subject: ReplaySubject, replay: PeerReplayRow): Promise<Answer> {
    const tokens = this.tokensOf(replay);
    const steps = decodeSteps(replay.steps!, VERIFY_TOP);
    if (!steps || steps.length !== tokens.length || steps.some((s, i) => s.token !== tokens[i])) return { replay, steps: null, verdict: null };
    const verdict = await this.spotChecks.verdictOf(verifyJobOf(subject, replay.job), () => this.recomputation(replay.job, steps));
    return { replay, steps, verdict };
  }

  /** A peer's numbers with what the platform knows itself: the prompt's tail, the tokens' text and pieces. */
  private async recomputation(job: ReplayJob, steps: Step[]): Promise<Recomputation> {
    const tokens = steps.map((s) => s.token);
    const vocab = await this.counter.vocabSize(job.model_id);
    if (steps.some((s) => [s.token, ...s.top.map(([id]) => id)].some((id) => id >= vocab))) throw new RangeError('a token is not in the vocabulary');
    const ids = [...new Set(steps.flatMap((s) => [s.token, ...s.top.map(([id]) => id)]))];
    const [promptTail, decoded] = await Promise.all([
      this.counter.inputTail(job.model_id, generationInput(job), REPEAT_WINDOW),
      this.counter.decode(job.model_id, tokens, ids),
    ]);
    return { steps, promptTail, ...decoded };
  }

  private async conclude(subject: ReplaySubject, verdict: SpotCheckVerdict): Promise<void> {
    if ('spotCheckId' in subject) await this.spotChecks.concludeCheck(subject.spotCheckId, () => verdict);
    else await this.spotChecks.concludeProof(subject.proofId, () => verdict);
  }

  /**
   * The peers whose recomputations decided a reply's check earn a verification reward (RewardsService); a model
   * challenge, part of joining the network, is verified for nothing.
   */
  private async reward(subject: ReplaySubject, deciders: Answer[]): Promise<void> {
    if (!('spotCheckId' in subject)) return;
    const check = await this.checks.spotCheck(subject.spotCheckId);
    if (!check) return;
    await this.transactions.run(async (tx) => {
      for (const a of deciders) await this.rewards.recordVerification(a.replay.id, check.task_id, a.replay.node_id!, tx);
    });
  }

  /** A peer whose recomputation two other peers' outvoted is suspended, as a node whose reply is not the model's. */
  private outvoted(answer: Answer, subject: ReplaySubject): Promise<void> {
    const check_id = 'spotCheckId' in subject ? subject.spotCheckId : subject.proofId;
    return this.spotChecks.penalizeReplayer(answer.replay.node_id!, { check_id });
  }

  /** No peer took the check: a challenge stands on its file proof (as for a model's first node); a check is not made. */
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

/** Two peers agree when both read as recomputations and their numbers are the same within tolerance. */
const agree = (a: Answer, b: Answer): boolean => !!a.steps && !!b.steps && sameRecomputation(a.steps, b.steps);

/** A check as the verdict reads it (the same shape a trusted generator's verification job has). */
function verifyJobOf(subject: ReplaySubject, job: ReplayJob): VerifyJob {
  const { params, claim } = job;
  return {
    kind: 'spotCheckId' in subject ? 'reply' : 'proof',
    checkId: 'spotCheckId' in subject ? subject.spotCheckId : subject.proofId,
    modelId: job.model_id,
    ...generationInput(job),
    params,
    recompute: { commitment: claim.commitment, text: claim.text, stopReason: claim.stop_reason },
  };
}
