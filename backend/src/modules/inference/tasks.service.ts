import { ConflictException, ForbiddenException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Schemas } from '../../contract/types';
import { rowsOf } from '../../database/sql';
import { ChatService } from '../chat/chat.service';
import { NotificationsService } from '../notifications/notifications.service';
import { LedgerService, STALE_GRACE_SECONDS } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';
import { REWARD_BASE_GLOB, rewardUnits } from './rewards';

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

  /**
   * Ends a task once: settles its hold, saves its reply and records the outcome in one transaction, after
   * locking the task. False when it had already ended (a worker finishing a reply the reaper has just ended,
   * or the other way round): then nothing is charged or saved again.
   */
  async finish(outcome: TaskOutcome): Promise<boolean> {
    const ended = await this.db.transaction(async (em) => {
      const [task] = rowsOf<{ status: string }>(await em.query(`SELECT status FROM inference_tasks WHERE id = $1 FOR UPDATE`, [outcome.taskId]));
      if (!task || (task.status !== 'queued' && task.status !== 'running')) return false;
      if (outcome.holdId) await this.ledger.settle(outcome.holdId, outcome.chargedUnits, em);
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
        `UPDATE inference_tasks SET status = $2, node_id = coalesce($3, node_id), prompt_tokens = $4, completion_tokens = $5, bytes_processed = $6,
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

  private async load(em: EntityManager, taskId: string): Promise<TaskRow | undefined> {
    return rowsOf<TaskRow>(
      await em.query(
        `SELECT t.id, t.node_id, t.status, t.difficulty, t.reward_transaction_id, n.owner_id, n.hardware_score
         FROM inference_tasks t LEFT JOIN nodes n ON n.id = t.node_id WHERE t.id = $1 FOR UPDATE OF t`,
        [taskId],
      ),
    )[0];
  }

  /** For ledger:check: tasks still open past the longest possible reply (the reaper should have ended them). */
  static async stuck(em: EntityManager, replyTimeoutSeconds: number): Promise<string[]> {
    const rows = (await em.query(
      `SELECT id, stream_id, status, extract(epoch FROM now() - created_at)::int AS age FROM inference_tasks
       WHERE status IN ('queued', 'running') AND created_at < now() - make_interval(secs => $1)`,
      [replyTimeoutSeconds + STALE_GRACE_SECONDS],
    )) as Array<{ id: string; stream_id: string; status: string; age: number }>;
    return rows.map((t) => `task ${t.id} (${t.stream_id}) is still ${t.status} after ${t.age} s, past the longest possible reply`);
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
