import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { REDIS } from '../../redis/redis.module';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';
import { REWARD_BASE_GLOB, rewardShareUnits, rewardUnits } from './rewards';
import { proportional } from '../nodes/pool-plan';
import { RewardsRepository, type NodeReward, type NodeRewardTotals, type RewardShare } from './rewards.repository';
import { TasksRepository, type RewardableTask } from './tasks.repository';

/** Due rewards read per query while settling. */
const SETTLE_BATCH = 100;

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
    private readonly tasks: TasksRepository,
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
    const rewards = await this.ledger.platformAccount('platform:rewards', tx);
    const charged = await this.ledger.settleLocking(holdId, units, [rewards], tx);
    const share = rewardShareUnits(charged, this.config.rewards.sharePercent);
    if (share > 0) {
      await this.ledger.post(
        {
          type: 'reward',
          description: `Rewards share of task ${taskId.slice(0, 8)}`,
          reference: taskId,
          lines: [
            { accountId: await this.ledger.platformAccount('platform:spending', tx), amount: -share },
            { accountId: rewards, amount: share },
          ],
        },
        tx,
      );
    }
    return charged;
  }

  /**
   * Records the pending reward of a completed task (once; a second call finds the first). Null when the task earns
   * nothing: not completed, no node owner, requested by that owner, or charged nothing.
   */
  async recordPending(taskId: string, tx: Tx): Promise<NodeReward | null> {
    const task = await this.tasks.lockForReward(taskId, tx);
    if (!task || !this.earns(task)) return null;
    const difficulty = Number(task.difficulty ?? 1);
    const hardwareScore = Number(task.hardware_score ?? 1);
    const units = rewardUnits(difficulty, hardwareScore);
    await this.rewards.record(
      {
        taskId,
        nodeId: task.node_id!,
        ownerId: task.owner_id!,
        difficulty,
        hardwareScore,
        units,
        payableAt: new Date(Date.now() + this.config.rewards.settlementMs),
      },
      tx,
    );
    await this.rewards.recordShares(taskId, await this.shares(task.node_id!, task.model_id, units, tx), tx);
    return (await this.rewards.byTask(taskId, tx)) ?? null;
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

  /** The timer's run: one process at a time per interval (a Redis lock). */
  private async settleOnce(): Promise<void> {
    const lock = `${this.config.redis.prefix}:rewards-lock`;
    if (!(await this.redis.set(lock, '1', 'PX', this.config.rewards.settleIntervalMs, 'NX'))) return;
    const s = await this.settle();
    if (s.paid || s.unfunded) this.logger.log(`Paid ${s.paid} reward(s)${s.unfunded ? '; the next waits for funding' : ''}`);
  }

  /**
   * Accrues the emission up to `asOf`, then pays the rewards payable at `asOf`, oldest first, until one cannot be
   * funded (it and the rest wait). Safe to run concurrently: each reward is paid under its row lock, once.
   */
  async settle(asOf: Date = new Date()): Promise<Settlement> {
    const result: Settlement = { emitted: await this.ledger.accrueEmission(asOf), paid: 0, unfunded: false };
    for (;;) {
      const due = await this.rewards.due(asOf, SETTLE_BATCH);
      if (!due.length) return result;
      // A reward another run paid meanwhile is gone from the next batch.
      for (const taskId of due) {
        const outcome = await this.pay(taskId);
        if (outcome === 'unfunded') return { ...result, unfunded: true };
        if (outcome === 'paid') result.paid++;
      }
    }
  }

  private pay(taskId: string): Promise<'paid' | 'gone' | 'unfunded'> {
    return this.transactions.run(async (tx) => {
      const reward = await this.rewards.lockUnpaid(taskId, tx);
      if (!reward) return 'gone';
      const rewards = await this.ledger.platformAccount('platform:rewards', tx);
      const wallet = await this.ledger.walletOf(reward.ownerId, tx);
      const funds = await this.ledger.lockInOrder([rewards, wallet.id], tx);
      if (funds.get(rewards)!.balance < reward.units) return 'unfunded';
      const transactionId = await this.ledger.post(
        {
          type: 'earning',
          description: `Reward for processing task ${taskId.slice(0, 8)}`,
          reference: taskId,
          lines: [
            { accountId: rewards, amount: -reward.units },
            { accountId: wallet.id, amount: reward.units },
          ],
        },
        tx,
      );
      await this.rewards.markPaid(taskId, transactionId, tx);
      await this.tasks.setReward(taskId, transactionId, tx);
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
