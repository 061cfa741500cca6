import { ConflictException, ForbiddenException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Schemas } from '../../contract/types';
import { rowsOf } from '../../database/sql';
import { ChatService } from '../chat/chat.service';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';
import { REWARD_BASE_GLOB, rewardUnits } from './rewards';

export interface TaskOutcome {
  taskId: string;
  nodeId: string;
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

interface TaskRow {
  id: string;
  node_id: string | null;
  status: string;
  difficulty: string | null;
  reward_transaction_id: string | null;
  owner_id: string | null;
  hardware_score: string | null;
}

/**
 * Every job is a task: settled against its hold (charged at most once: the hold settles only while
 * pending), recorded with its node, tokens, bytes and duration, and rewarded once to the node's owner.
 */
@Injectable()
export class TasksService {
  private readonly logger = new Logger('Tasks');

  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    private readonly ledger: LedgerService,
    private readonly notifications: NotificationsService,
    private readonly chat: ChatService,
  ) {}

  async finish(outcome: TaskOutcome): Promise<void> {
    if (outcome.holdId) await this.ledger.settle(outcome.holdId, outcome.chargedUnits);
    await this.db.transaction(async (em) => {
      const reply = outcome.reply;
      if (reply) {
        await this.chat.saveReply(em, reply.conversationId, {
          userMessageId: reply.userMessageId,
          promptTokens: outcome.promptTokens,
          content: reply.content,
          tokens: outcome.completionTokens,
          model: reply.model,
          status: outcome.status === 'completed' ? 'sent' : 'error',
        });
      }
      await em.query(
      `UPDATE inference_tasks SET status = $2, node_id = $3, prompt_tokens = $4, completion_tokens = $5, bytes_processed = $6,
              duration_ms = $7, stop_reason = $8, error = $9, charged_units = $10, difficulty = $11, completed_at = now()
       WHERE id = $1 AND status IN ('queued', 'running')`,
      [
        outcome.taskId,
        outcome.status,
        outcome.nodeId,
        outcome.promptTokens,
        outcome.completionTokens,
        outcome.bytes,
        Math.round(outcome.durationMs),
        outcome.stopReason,
        outcome.error,
        outcome.chargedUnits,
        outcome.difficulty,
      ],
      );
    });
    if (outcome.status === 'completed') {
      try {
        await this.reward(outcome.taskId);
      } catch (err) {
        // The task stays unrewarded; the provider can claim it with POST /api/tokens/earn.
        this.logger.warn(`Reward for task ${outcome.taskId} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private async load(em: EntityManager, taskId: string): Promise<TaskRow | undefined> {
    return rowsOf<TaskRow>(
      await em.query(
        `SELECT t.id, t.node_id, t.status, t.difficulty, t.reward_transaction_id, n.owner_id, n.hardware_score
         FROM inference_tasks t LEFT JOIN nodes n ON n.id = t.node_id WHERE t.id = $1 FOR UPDATE OF t`,
        [taskId],
      ),
    )[0];
  }

  /** Credits the node owner's reward for a completed task; null when there is nobody to pay or it was paid. */
  async reward(taskId: string): Promise<Schemas['TaskReward'] | null> {
    return this.db.transaction(async (em) => {
      const task = await this.load(em, taskId);
      if (!task || task.status !== 'completed' || !task.owner_id || task.reward_transaction_id) return null;
      return this.credit(em, task, task.owner_id);
    });
  }

  /** POST /api/tokens/earn: the provider claims a completed task whose automatic credit failed. */
  async claim(callerId: string, taskId: string): Promise<Schemas['TaskReward']> {
    return this.db.transaction(async (em) => {
      const task = await this.load(em, taskId);
      if (!task || task.status !== 'completed') throw new NotFoundException('Task not found');
      if (task.owner_id !== callerId) throw new ForbiddenException("This task was processed by another provider's node");
      if (task.reward_transaction_id) throw new ConflictException('This task has already been rewarded');
      return this.credit(em, task, callerId);
    });
  }

  private async credit(em: EntityManager, task: TaskRow, ownerId: string): Promise<Schemas['TaskReward']> {
    const difficulty = Number(task.difficulty ?? 1);
    const score = Number(task.hardware_score ?? 1);
    const units = rewardUnits(difficulty, score);
    const wallet = await this.ledger.walletOf(ownerId, em);
    const txId = await this.ledger.post(em, {
      type: 'earning',
      description: `Reward for processing task ${task.id.slice(0, 8)}`,
      reference: task.id,
      lines: [
        { accountId: await this.ledger.platformAccount('platform:rewards', em), amount: -units },
        { accountId: wallet.id, amount: units },
      ],
    });
    await em.query(`UPDATE inference_tasks SET reward_transaction_id = $2 WHERE id = $1`, [task.id, txId]);
    await this.notifications.create(em, ownerId, 'reward', 'Task reward', `Your node earned ${toGlob(units)} GLOB for processing a task.`, {
      task_id: task.id,
      amount: toGlob(units),
    });
    return { transaction_id: txId, task_id: task.id, amount: toGlob(units), difficulty, hardware_score: score, base: REWARD_BASE_GLOB };
  }
}
