import {
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { REDIS } from '../../redis/redis.module';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../../common/units';
import { cappedReward, emissionShares, REWARD_BASE_GLOB, rewardBonusUnits, rewardShareUnits, rewardUnits, verificationRewardUnits } from './rewards';
import { proportional } from '../../common/proportional';
import { RewardsRepository, type NodeReward, type NodeRewardTotals, type RewardableTask, type RewardShare } from './rewards.repository';

export const NO_REWARD = "This task earns no reward: it was requested by the node's owner or charged nothing";

const DAY_MS = 86_400_000;
/** The most the emission may have minted over `ms` at `unitsPerDay` (a unit of tolerance for rounding). */
const emissionAllowance = (unitsPerDay: number, ms: number) => Math.floor((unitsPerDay * Math.max(0, ms)) / DAY_MS) + 1;

/** Rewards that may share one settlement's emission. */
const EMISSION_BATCH = 10_000;

/** Due rewards read per query while settling. */
const SETTLE_BATCH = 100;
/** Moves of nodes' reward figures folded into their totals per statement. */
const FOLD_BATCH = 5_000;

export interface Settlement {
  /** Units the emission minted into the rewards account. */
  emitted: number;
  /** Rewards paid. */
  paid: number;
  /** Whether a due reward waits because the rewards account cannot fund it. */
  unfunded: boolean;
}

/**
 * Node rewards (25 GLOB × difficulty × hardware score per task) are funded, never minted: they are paid only from
 * platform:rewards, which receives the emission and a share of every task's charge. A completed task records its
 * reward as pending (unless its requester owns the node, or it charged nothing); settlement pays it after the
 * settlement window, oldest first, while the rewards account can fund it.
 */
@Injectable()
export class RewardsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Rewards');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rewards: RewardsRepository,
    private readonly ledger: LedgerService,
    private readonly notifications: NotificationsService,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.settleOnce().catch((err: Error) => this.logger.warn(`Settlement failed: ${err.message}`));
    }, this.config.rewards.settleIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Per node (every id asked for, zeros included): units paid and units still pending. */
  async totalsByNode(nodeIds: string[]): Promise<Map<string, NodeRewardTotals>> {
    const found = nodeIds.length ? await this.rewards.totalsByNode(nodeIds) : new Map<string, NodeRewardTotals>();
    return new Map(nodeIds.map((id) => [id, found.get(id) ?? { earnedUnits: 0, pendingUnits: 0 }]));
  }

  /**
   * Settles a task's hold and moves REWARD_SHARE_PERCENT of what it charged from platform:spending to
   * platform:rewards, in the caller's transaction. Returns the units charged.
   */
  async settleCharge(holdId: string, units: number, taskId: string, tx: Tx): Promise<number> {
    const spending = await this.ledger.platformAccount('platform:spending', tx);
    const rewards = await this.ledger.platformAccount('platform:rewards', tx);
    // The share is written in the settlement's own statement: one round trip less while those rows stay locked.
    return this.ledger.settleWith(
      holdId,
      units,
      (charged) => {
        const share = rewardShareUnits(charged, this.config.rewards.sharePercent);
        if (share <= 0) return [];
        return [
          {
            type: 'reward',
            description: `Rewards share of task ${taskId.slice(0, 8)}`,
            reference: taskId,
            lines: [
              { accountId: spending, amount: -share },
              { accountId: rewards, amount: share },
            ],
          },
        ];
      },
      tx,
    );
  }

  /** The node's shares of rewards per UTC day of the last `days`, in units: paid and pending. */
  dailyByNode(nodeId: string, days: number): Promise<Array<{ date: string; earned: number; pending: number }>> {
    return this.rewards.dailyByNode(nodeId, days);
  }

  /** The node's shares of rewards per model over the last `days`, in units: paid and pending. */
  byModelOfNode(nodeId: string, days: number): Promise<Map<string, { earned: number; pending: number }>> {
    return this.rewards.byModelOfNode(nodeId, days);
  }

  /**
   * Records the pending reward of a completed task (once; a second call finds the first). Null when the task earns
   * nothing: not completed, no node owner, requested by that owner, or charged nothing.
   */
  async recordPending(taskId: string, tx: Tx): Promise<NodeReward | null> {
    const task = await this.rewards.lockForReward(taskId, tx);
    if (!task || !this.earns(task)) return null;
    const difficulty = Number(task.difficulty ?? 1);
    const hardwareScore = Number(task.hardware_score ?? 1);
    const units = cappedReward(rewardUnits(difficulty, hardwareScore, task.tokens), Number(task.charged_units), this.config.rewards.sharePercent);
    if (units <= 0) return null;
    await this.rewards.record(
      {
        taskId,
        nodeId: task.node_id!,
        ownerId: task.owner_id!,
        difficulty,
        hardwareScore,
        units,
        tokens: task.tokens,
        payableAt: new Date(Date.now() + this.config.rewards.settlementMs),
      },
      tx,
    );
    await this.rewards.recordShares(taskId, await this.shares(task.node_id!, task.model_id, units, tx), tx);
    return (await this.rewards.byTask(taskId, tx)) ?? null;
  }

  /**
   * Records the reward of a peer whose recomputation decided a reply's check (`replayId`: its answer), paid from the
   * platform's share of the reply's charge after the settlement window. Nothing for a reply that was not completed or
   * charged nothing, nor for a peer whose owner asked for the reply; answers the units recorded.
   */
  async recordVerification(replayId: string, taskId: string, nodeId: string, tx: Tx): Promise<number> {
    const b = await this.rewards.verificationBasis(taskId, nodeId, tx);
    if (!b || b.status !== 'completed' || !b.owner_id || b.owner_id === b.user_id) return 0;
    const charged = Number(b.charged_units ?? 0);
    const room = charged - rewardShareUnits(charged, this.config.rewards.sharePercent) - Number(b.recorded);
    const units = verificationRewardUnits(Number(b.difficulty ?? 1), Number(b.hardware_score ?? 1), b.tokens, room);
    if (units <= 0) return 0;
    const payableAt = new Date(Date.now() + this.config.rewards.settlementMs);
    await this.rewards.recordVerification({ replayId, taskId, nodeId, ownerId: b.owner_id, units, payableAt }, tx);
    return units;
  }

  /**
   * Who earned a task's reward: its node alone, or, for a pooled model, every member in proportion to the layers it
   * computed (whole milli-GLOB that add up to the reward; the owner is the same, so only the attribution differs).
   */
  private async shares(nodeId: string, modelId: string, units: number, tx: Tx): Promise<RewardShare[]> {
    const members = (await this.rewards.poolLayers(nodeId, modelId, tx)).filter((m) => m.layers > 0);
    if (members.length === 0) return [{ nodeId, units, layers: null }];
    const split = proportional(
      units,
      members.map((m) => m.layers),
    );
    return members.map((m, i) => ({ nodeId: m.node_id, units: split[i]!, layers: m.layers }));
  }

  /** Whether a task earns its node's owner a reward: someone else's completed, paid request. */
  earns(task: RewardableTask): boolean {
    return (
      task.status === 'completed' &&
      !!task.node_id &&
      !!task.owner_id &&
      !!task.user_id &&
      task.user_id !== task.owner_id &&
      Number(task.charged_units ?? 0) > 0
    );
  }

  /**
   * POST /api/tokens/earn: the provider asks after a task's reward. Makes sure it is recorded (it normally is, when
   * the task completes) and answers it as it stands, pending or paid; it is only ever paid by settlement.
   */
  async claim(callerId: string, taskId: string): Promise<Schemas['TaskReward']> {
    return this.transactions.run(async (tx) => {
      const task = await this.rewards.lockForReward(taskId, tx);
      if (!task || task.status !== 'completed') throw new NotFoundException('Task not found');
      if (task.owner_id !== callerId) throw new ForbiddenException("This task was processed by another provider's node");
      const reward = await this.recordPending(taskId, tx);
      if (!reward) throw new ConflictException(NO_REWARD);
      return this.describe(reward);
    });
  }

  /** A reward as POST /api/tokens/earn answers it. */
  describe(reward: NodeReward): Schemas['TaskReward'] {
    return {
      task_id: reward.taskId,
      status: reward.transactionId ? 'paid' : 'pending',
      transaction_id: reward.transactionId,
      payable_at: reward.payableAt.toISOString(),
      amount: toGlob(reward.units),
      difficulty: reward.difficulty,
      hardware_score: reward.hardwareScore,
      base: REWARD_BASE_GLOB,
    };
  }

  /**
   * What ledger:check proves of rewards: the emission minted no more than its rate allows since it started, and
   * shared out no more than it minted; every earning is a recorded reward for someone else's paid task, whose nodes'
   * shares add up to it; no reward is above its task's charge, nor pays as transferable more than the part of the
   * charge that was not welcome bonus; none of a task that failed its check was paid; and each pays for the tokens
   * the platform counted for its task.
   */
  async reconcile(tx?: Tx): Promise<string[]> {
    const problems: string[] = [];
    for (const e of await this.rewards.unearnedEarnings(tx)) problems.push(`earning ${e.transaction_id}: ${e.reason}`);
    for (const r of await this.rewards.unbalancedRewardShares(tx)) {
      problems.push(`reward of task ${r.task_id}: its nodes' shares add up to ${r.shared}, not its ${r.units}`);
    }
    for (const r of await this.rewards.rewardsAboveCharge(tx))
      problems.push(`reward of task ${r.task_id} is ${r.units}, above its charge ${r.charged}`);
    for (const r of await this.rewards.bonusMadeTransferable(tx)) {
      problems.push(`reward of task ${r.task_id} paid ${r.transferable} transferable, more than the ${r.paid} its charge paid that was not bonus`);
    }
    const state = await this.rewards.emission(tx);
    // The test clock may have accrued ahead of now.
    const until = Math.max(Date.now(), state.accruedAt.getTime());
    const allowed = state.openingUnits + emissionAllowance(this.config.rewards.emissionUnitsPerDay, until - state.startedAt.getTime());
    const emission = await this.rewards.emissionUse(tx);
    if (emission.accrued + state.openingUnits > allowed) {
      problems.push(
        `the emission issued ${emission.accrued + state.openingUnits}, more than ${allowed} allowed since ${state.startedAt.toISOString()}`,
      );
    }
    if (emission.shared + emission.undistributed > emission.accrued) {
      problems.push(
        `the emission shared ${emission.shared} and holds ${emission.undistributed} undistributed, more than the ${emission.accrued} it minted`,
      );
    }
    for (const r of await this.rewards.paidDespiteFailedCheck(tx)) {
      problems.push(`reward of task ${r.task_id} was paid though the task failed its check`);
    }
    for (const v of await this.rewards.unearnedVerifications(tx)) problems.push(`verification reward ${v.replay_id}: ${v.reason}`);
    for (const v of await this.rewards.verificationsAboveShare(this.config.rewards.sharePercent, tx)) {
      problems.push(`verification rewards of task ${v.task_id} add up to ${v.units}, above the platform's share of its charge, ${v.share}`);
    }
    for (const r of await this.rewards.uncountedWork(tx)) {
      problems.push(`reward of task ${r.task_id} pays for ${r.tokens} tokens, but the platform counted ${r.counted}`);
    }
    for (const n of await this.rewards.staleNodeTotals(tx)) {
      problems.push(
        `node ${n.node_id}: its kept reward figures are ${n.kept_earned} earned and ${n.kept_pending} pending, ` +
          `but its rewards add up to ${n.earned} and ${n.pending}`,
      );
    }
    return problems;
  }

  /** The timer's run: one process at a time per interval (a Redis lock). */
  private async settleOnce(): Promise<void> {
    const lock = `${this.config.redis.prefix}:rewards-lock`;
    if (!(await this.redis.set(lock, '1', 'PX', this.config.rewards.settleIntervalMs, 'NX'))) return;
    const s = await this.settle();
    if (s.paid || s.unfunded) this.logger.log(`Paid ${s.paid} reward(s)${s.unfunded ? '; the next waits for funding' : ''}`);
    // The nodes' reward figures: what changed since the last run, folded into their totals.
    let folded: number;
    do folded = await this.rewards.foldMoves(FOLD_BATCH);
    while (folded === FOLD_BATCH);
  }

  /**
   * Accrues the emission up to `asOf`, then pays the rewards payable at `asOf`, oldest first, until one cannot be
   * funded (it and the rest wait). Safe to run concurrently: each reward is paid under its row lock, once.
   */
  async settle(asOf: Date = new Date()): Promise<Settlement> {
    const result: Settlement = { emitted: await this.accrueEmission(asOf), paid: 0, unfunded: false };
    await this.shareEmission(asOf);
    // Replies' rewards, then verifiers': each kind oldest first until one cannot be funded.
    const kinds = [
      { due: () => this.rewards.due(asOf, SETTLE_BATCH), pay: (id: string) => this.pay(id) },
      { due: () => this.rewards.dueVerifications(asOf, SETTLE_BATCH), pay: (id: string) => this.payVerification(id) },
    ];
    for (const kind of kinds) {
      // A reward another run paid meanwhile is gone from the next batch.
      for (let due = await kind.due(); due.length; due = await kind.due()) {
        for (const id of due) {
          const outcome = await kind.pay(id);
          if (outcome === 'unfunded') return { ...result, unfunded: true };
          if (outcome === 'paid') result.paid++;
        }
      }
    }
    return result;
  }

  /** A verification reward, from the platform's own account (spending); with the checked reply's bonus mix, as any reward. */
  private payVerification(replayId: string): Promise<'paid' | 'gone' | 'unfunded'> {
    return this.transactions.run(async (tx) => {
      const reward = await this.rewards.lockUnpaidVerification(replayId, tx);
      if (!reward) return 'gone';
      const paid = await this.payEarning(
        {
          from: 'platform:spending',
          ...reward,
          description: `Reward for verifying task ${reward.taskId.slice(0, 8)}`,
          // One earning per check answered (a reply's check may pay two or three peers).
          reference: replayId,
        },
        tx,
      );
      if (!paid) return 'unfunded';
      await this.rewards.markVerificationPaid(replayId, paid.transactionId, paid.bonus, tx);
      await this.notifications.create(
        reward.ownerId,
        'reward',
        'Verification reward',
        `Your node earned ${toGlob(reward.units)} GLOB for verifying another node's work.`,
        { task_id: reward.taskId, amount: toGlob(reward.units) },
        tx,
      );
      return 'paid';
    });
  }

  /**
   * Moves a reward from a platform account to its owner's wallet, with its charge's bonus mix (what the charge paid
   * from bonus reaches the owner as bonus). Null when the account cannot fund it now.
   */
  private async payEarning(
    e: {
      from: 'platform:rewards' | 'platform:spending';
      ownerId: string;
      units: number;
      holdId: string | null;
      description: string;
      reference: string;
    },
    tx: Tx,
  ): Promise<{ transactionId: string; bonus: number } | null> {
    const from = await this.ledger.platformAccount(e.from, tx);
    const wallet = await this.ledger.walletOf(e.ownerId, tx);
    const funds = await this.ledger.lockInOrder([from, wallet.id], tx);
    if (funds.get(from)!.balance < e.units) return null;
    const charge = await this.ledger.chargeOf(e.holdId, tx);
    const bonus = rewardBonusUnits(e.units, charge.amount, charge.bonus);
    const transactionId = await this.ledger.post(
      {
        type: 'earning',
        description: e.description,
        reference: e.reference,
        lines: [
          { accountId: from, amount: -e.units },
          { accountId: wallet.id, amount: e.units, bonus },
        ],
      },
      tx,
    );
    return { transactionId, bonus };
  }

  /**
   * Mints the emission due up to `asOf` (REWARD_EMISSION_GLOB_PER_DAY pro rata to the time since the last accrual)
   * into the rewards account, where it waits to be shared out by work; one accrual at a time. Answers the units.
   */
  private accrueEmission(asOf: Date): Promise<number> {
    return this.transactions.run(async (tx) => {
      const state = await this.rewards.lockEmission(tx);
      const elapsed = asOf.getTime() - state.accruedAt.getTime();
      const rate = this.config.rewards.emissionUnitsPerDay;
      const units = Math.floor((rate * Math.max(0, elapsed)) / DAY_MS);
      if (units <= 0) {
        // A time without emission is over (raising the rate later pays nothing back); below one unit the time is
        // left to accrue with the next run rather than rounded away.
        if (rate === 0 && elapsed > 0) await this.rewards.accrued(asOf, 0, tx);
        return 0;
      }
      await this.ledger.post(
        {
          type: 'reward',
          description: 'Rewards emission',
          reference: asOf.toISOString(),
          lines: [
            { accountId: await this.ledger.platformAccount('platform:emission', tx), amount: -units },
            { accountId: await this.ledger.platformAccount('platform:rewards', tx), amount: units },
          ],
        },
        tx,
      );
      await this.rewards.accrued(asOf, units, tx);
      return units;
    });
  }

  /**
   * The emission waiting to be shared out goes to the rewards falling due now, in proportion to their work (their
   * reward so far), each lifted at most to its task's charge: it narrows the platform's cut, never pays more than a
   * requester paid, and whoever sends the most requests does not take it first. What no reward has room for waits.
   */
  async shareEmission(asOf: Date): Promise<number> {
    return this.transactions.run(async (tx) => {
      const pool = await this.rewards.lockUndistributed(tx);
      const due = await this.rewards.awaitingEmission(asOf, EMISSION_BATCH, tx);
      if (pool <= 0 || due.length === 0) return 0;
      const parts = emissionShares(
        pool,
        due.map((d) => d.units),
        due.map((d) => d.room),
      );
      for (const [i, d] of due.entries()) {
        await this.rewards.addEmission(d.task_id, parts[i]!, tx);
        if (parts[i]! > 0) await this.reshare(d.task_id, d.units + parts[i]!, tx);
      }
      const given = parts.reduce((a, b) => a + b, 0);
      await this.rewards.addUndistributed(-given, tx);
      return given;
    });
  }

  /** A reward that grew is shared again among its nodes as before (by layers for a pool). */
  private async reshare(taskId: string, units: number, tx: Tx): Promise<void> {
    const shares = await this.rewards.sharesOf(taskId, tx);
    const split = proportional(
      units,
      shares.map((s) => s.layers ?? s.units),
    );
    for (const [i, s] of shares.entries()) await this.rewards.setShare(taskId, s.node_id, split[i]!, tx);
  }

  private pay(taskId: string): Promise<'paid' | 'gone' | 'unfunded'> {
    return this.transactions.run(async (tx) => {
      const reward = await this.rewards.lockUnpaid(taskId, tx);
      if (!reward) return 'gone';
      const paid = await this.payEarning(
        { from: 'platform:rewards', ...reward, description: `Reward for processing task ${taskId.slice(0, 8)}`, reference: taskId },
        tx,
      );
      if (!paid) return 'unfunded';
      const { transactionId, bonus } = paid;
      await this.rewards.markPaid(taskId, transactionId, bonus, tx);
      await this.rewards.setTaskReward(taskId, transactionId, tx);
      await this.notifications.create(
        reward.ownerId,
        'reward',
        'Task reward',
        `Your node earned ${toGlob(reward.units)} GLOB for processing a task.`,
        { task_id: taskId, amount: toGlob(reward.units) },
        tx,
      );
      return 'paid';
    });
  }
}
