import { Injectable } from '@nestjs/common';
import { Transactions, type Tx } from '../../database/repository';
import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { ChatService } from '../chat/chat.service';
import { LedgerService, STALE_GRACE_SECONDS } from '../wallet/ledger.service';
import { RewardsService } from '../rewards/rewards.service';
import { FairQueue } from './fair-queue';
import { TasksRepository } from './tasks.repository';

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
 * pending), recorded with its node, tokens, bytes and duration, and, when it earns, its node owner's pending reward.
 */
@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly transactions: Transactions,
    private readonly rewards: RewardsService,
    private readonly chat: ChatService,
    private readonly apiKeys: ApiKeysRepository,
    private readonly ledger: LedgerService,
    private readonly fair: FairQueue,
  ) {}

  /**
   * Ends a task once: settles its hold (a share of the charge funding rewards), saves its reply, records the outcome
   * and, for a completed task that earns, its pending reward, in one transaction, after locking the task; then it
   * leaves its user's open replies (FairQueue). False when it had already ended (a worker finishing a reply the
   * reaper has just ended, or the other way round): then nothing is charged or saved again.
   */
  async finish(outcome: TaskOutcome): Promise<boolean> {
    const ended = await this.transactions.run(async (tx) => {
      const task = await this.tasks.lock(outcome.taskId, tx);
      if (task?.status !== 'queued' && task?.status !== 'running') return null;
      // The key before the ledger, as a new request's hold takes them: in the other order, a reply settling while the
      // same key's next request reserves deadlocks the two.
      const key = await this.tasks.apiKeyOf(outcome.taskId, tx);
      if (key?.api_key_id) await this.apiKeys.lock(key.api_key_id, tx);
      const charged = outcome.holdId ? await this.rewards.settleCharge(outcome.holdId, outcome.chargedUnits, outcome.taskId, tx) : 0;
      if (key?.api_key_id) await this.recordApiUsage(outcome, key, charged, tx);
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
            // A reply its requester stopped ends where the stop reached the generator: that text is saved and charged.
            stopped: outcome.status === 'completed' && outcome.stopReason === 'abort',
          },
          tx,
        );
      }
      await this.tasks.end(outcome.taskId, outcome, tx);
      if (outcome.status === 'completed') await this.rewards.recordPending(outcome.taskId, tx);
      return task;
    });
    if (!ended) return false;
    // No longer waiting or running: the user's next reply of this model queues one place sooner.
    await this.fair.leave(ended.user_id, ended.model_id, ended.stream_id).catch(() => undefined);
    return true;
  }

  /** A reply asked for with an API key is counted on the key, and its spending says what it was, as it settles. */
  private async recordApiUsage(outcome: TaskOutcome, task: { api_key_id: string | null; model_id: string }, charged: number, tx: Tx): Promise<void> {
    if (!task.api_key_id || outcome.status !== 'completed') return;
    const tokens = outcome.promptTokens + outcome.completionTokens;
    await this.apiKeys.recordUsage(task.api_key_id, tokens, charged, tx);
    if (charged > 0) await this.ledger.describe(outcome.holdId, `API: ${task.model_id}, ${tokens} tokens`, tx);
  }
}
