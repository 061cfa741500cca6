import { ConflictException, ForbiddenException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { ChatService } from '../chat/chat.service';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService, STALE_GRACE_SECONDS } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';
import { REWARD_BASE_GLOB, rewardUnits } from './rewards';
import { TasksRepository, type RewardableTask } from './tasks.repository';

export interface TaskOutcome {
  taskId: string;
  /** The node that ran it; null when it never ran (ended by the reaper while queued). */
  nodeId: string | null;
  holdId: string;
  status: 'completed' | 'failed';
  promptTokens: number;
  completionTokens: number;
  chargedUnits: number;
  bytes: number;
  durationMs: number;
  stopReason: string | null;
  error: string | null;
  difficulty: number;
  /** The reply to save in its conversation, whatever the outcome. */
  reply?: { conversationId: string; userMessageId?: string; content: string; model: string };
}

/** For ledger:check: tasks still open past the longest possible reply (the reaper should have ended them). */
export async function stuckTasks(tasks: TasksRepository, replyTimeoutSeconds: number): Promise<string[]> {
  const rows = await tasks.stuck(replyTimeoutSeconds + STALE_GRACE_SECONDS);
  return rows.map((t) => `task ${t.id} (${t.stream_id}) is still ${t.status} after ${t.age} s, past the longest possible reply`);
}

/**
 * Every job is a task: settled against its hold (charged at most once: the hold settles only while
 * pending), recorded with its node, tokens, bytes and duration, and rewarded once to the node's owner.
 */
@Injectable()
export class TasksService {
  private readonly logger = new Logger('Tasks');

  constructor(
    private readonly tasks: TasksRepository,
    private readonly transactions: Transactions,
    private readonly ledger: LedgerService,
    private readonly notifications: NotificationsService,
    private readonly chat: ChatService,
  ) {}

  /**
   * Ends a task once: settles its hold, saves its reply and records the outcome in one transaction, after
   * locking the task. False when it had already ended (a worker finishing a reply the reaper has just ended,
   * or the other way round): then nothing is charged or saved again.
   */
  async finish(outcome: TaskOutcome): Promise<boolean> {
    const ended = await this.transactions.run(async (tx) => {
      const status = await this.tasks.lockStatus(outcome.taskId, tx);
      if (status !== 'queued' && status !== 'running') return false;
      if (outcome.holdId) await this.ledger.settle(outcome.holdId, outcome.chargedUnits, tx);
      const reply = outcome.reply;
      if (reply) {
        await this.chat.saveReply(
          reply.conversationId,
          {
            userMessageId: reply.userMessageId,
            promptTokens: outcome.promptTokens,
            content: reply.content,
            tokens: outcome.completionTokens,
            model: reply.model,
            status: outcome.status === 'completed' ? 'sent' : 'error',
          },
          tx,
        );
      }
      await this.tasks.end(outcome.taskId, outcome, tx);
      return true;
    });
    if (ended && outcome.status === 'completed') {
      try {
        await this.reward(outcome.taskId);
      } catch (err) {
        // The task stays unrewarded; the provider can claim it with POST /api/tokens/earn.
        this.logger.warn(`Reward for task ${outcome.taskId} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return ended;
  }

  /** Credits the node owner's reward for a completed task; null when there is nobody to pay or it was paid. */
  async reward(taskId: string): Promise<Schemas['TaskReward'] | null> {
    return this.transactions.run(async (tx) => {
      const task = await this.tasks.lockForReward(taskId, tx);
      if (!task || task.status !== 'completed' || !task.owner_id || task.reward_transaction_id) return null;
      return this.credit(task, task.owner_id, tx);
    });
  }

  /** POST /api/tokens/earn: the provider claims a completed task whose automatic credit failed. */
  async claim(callerId: string, taskId: string): Promise<Schemas['TaskReward']> {
    return this.transactions.run(async (tx) => {
      const task = await this.tasks.lockForReward(taskId, tx);
      if (!task || task.status !== 'completed') throw new NotFoundException('Task not found');
      if (task.owner_id !== callerId) throw new ForbiddenException("This task was processed by another provider's node");
      if (task.reward_transaction_id) throw new ConflictException('This task has already been rewarded');
      return this.credit(task, callerId, tx);
    });
  }

  private async credit(task: RewardableTask, ownerId: string, tx: Tx): Promise<Schemas['TaskReward']> {
    const difficulty = Number(task.difficulty ?? 1);
    const score = Number(task.hardware_score ?? 1);
    const units = rewardUnits(difficulty, score);
    const wallet = await this.ledger.walletOf(ownerId, tx);
    const txId = await this.ledger.post(
      {
        type: 'earning',
        description: `Reward for processing task ${task.id.slice(0, 8)}`,
        reference: task.id,
        lines: [
          { accountId: await this.ledger.platformAccount('platform:rewards', tx), amount: -units },
          { accountId: wallet.id, amount: units },
        ],
      },
      tx,
    );
    await this.tasks.setReward(task.id, txId, tx);
    await this.notifications.create(
      ownerId,
      'reward',
      'Task reward',
      `Your node earned ${toGlob(units)} GLOB for processing a task.`,
      { task_id: task.id, amount: toGlob(units) },
      tx,
    );
    return { transaction_id: txId, task_id: task.id, amount: toGlob(units), difficulty, hardware_score: score, base: REWARD_BASE_GLOB };
  }
}
