import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import { liveNode } from '../../database/live-node';

export interface NewTask {
  id: string;
  userId: string;
  modelId: string;
  streamId: string;
  requestHash: string;
  maxTokens: number;
  priceUnits: number;
  conversationId: string | null;
  /** The API key that asked for it (a /v1 request), billed per key. */
  apiKeyId?: string | null;
}

/** A task as a later request with the same stream id sees it. */
export interface TaskByStream {
  id: string;
  user_id: string;
  request_hash: string;
  status: string;
  charged_units: string | null;
}

/** How a task ended. */
export interface TaskEnd {
  status: 'completed' | 'failed';
  nodeId: string | null;
  promptTokens: number;
  completionTokens: number;
  bytes: number;
  durationMs: number;
  stopReason: string | null;
  error: string | null;
  chargedUnits: number;
  difficulty: number;
}

/** A task not yet ended, as the reaper judges it. */
export interface OpenTask {
  id: string;
  stream_id: string;
  status: 'queued' | 'running';
  model_id: string;
  node_id: string | null;
  hold_id: string | null;
  conversation_id: string | null;
  /** Its node heartbeats. */
  node_live: boolean;
  /** Older than the reply timeout. */
  expired: boolean;
}

/** The inference_tasks table: one row per reply, from queued to its end. */
@Injectable()
export class TasksRepository extends ConfiguredRepository {
  /** Writes the queued task unless its stream id is taken; false when it is. */
  async claim(t: NewTask, tx?: Tx): Promise<boolean> {
    const claimed = await this.count(
      `INSERT INTO inference_tasks (id, user_id, model_id, status, stream_id, request_hash, max_tokens, price_units, conversation_id, api_key_id)
       VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8, $9) ON CONFLICT (stream_id) DO NOTHING RETURNING id`,
      [t.id, t.userId, t.modelId, t.streamId, t.requestHash, t.maxTokens, t.priceUnits, t.conversationId, t.apiKeyId ?? null],
      tx,
    );
    return claimed > 0;
  }

  async remove(id: string, tx?: Tx): Promise<void> {
    await this.rows(`DELETE FROM inference_tasks WHERE id = $1`, [id], tx);
  }

  async setHold(id: string, holdId: string, tx?: Tx): Promise<void> {
    await this.rows(`UPDATE inference_tasks SET hold_id = $2 WHERE id = $1`, [id, holdId], tx);
  }

  byStream(streamId: string, tx?: Tx): Promise<TaskByStream | undefined> {
    return this.one<TaskByStream>(
      `SELECT id, user_id, request_hash, status, charged_units FROM inference_tasks WHERE stream_id = $1`,
      [streamId],
      tx,
    );
  }

  /** A node starts the task; false when it has ended meanwhile. */
  async start(id: string, nodeId: string | null, tx?: Tx): Promise<boolean> {
    const started = await this.count(
      `UPDATE inference_tasks SET status = 'running', node_id = $2, started_at = now() WHERE id = $1 AND status IN ('queued', 'running') RETURNING id`,
      [id, nodeId],
      tx,
    );
    return started > 0;
  }

  /** The task's status and whose reply of which model it is, locked until the transaction ends; undefined when there is no such task. */
  lock(id: string, tx: Tx): Promise<{ status: string; user_id: string; model_id: string; stream_id: string } | undefined> {
    return this.one(`SELECT status, user_id, model_id, stream_id FROM inference_tasks WHERE id = $1 FOR UPDATE`, [id], tx);
  }

  /** The API key a task was asked for with (null for the web app's replies) and its model. */
  async apiKeyOf(id: string, tx: Tx): Promise<{ api_key_id: string | null; model_id: string } | undefined> {
    return this.one(`SELECT api_key_id, model_id FROM inference_tasks WHERE id = $1`, [id], tx);
  }

  /** Records how an open task ended (a task that has ended stays as it was). */
  async end(id: string, e: TaskEnd, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE inference_tasks SET status = $2, node_id = coalesce($3, node_id), prompt_tokens = $4, completion_tokens = $5, bytes_processed = $6,
              duration_ms = $7, stop_reason = $8, error = $9, charged_units = $10, difficulty = $11, completed_at = now()
       WHERE id = $1 AND status IN ('queued', 'running')`,
      [
        id,
        e.status,
        e.nodeId,
        e.promptTokens,
        e.completionTokens,
        e.bytes,
        Math.round(e.durationMs),
        e.stopReason,
        e.error,
        e.chargedUnits,
        e.difficulty,
      ],
      tx,
    );
  }

  /** The usage a remote node reported for its task, kept beside the platform's own count to see who lies. */
  async recordReported(id: string, usage: { promptTokens: number; completionTokens: number }, tx?: Tx): Promise<void> {
    await this.rows(
      `UPDATE inference_tasks SET reported_prompt_tokens = $2, reported_completion_tokens = $3 WHERE id = $1`,
      [id, usage.promptTokens, usage.completionTokens],
      tx,
    );
  }

  /** Tokens (prompt and completion, as counted) of the node's completed tasks per UTC day of the last `days`. */
  async servedByDay(nodeId: string, days: number, tx?: Tx): Promise<Map<string, number>> {
    const rows = await this.rows<{ date: string; tokens: string }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS date, coalesce(sum(t.prompt_tokens + t.completion_tokens), 0) AS tokens
       FROM generate_series((now() AT TIME ZONE 'UTC')::date - ($2::int - 1), (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day)
       LEFT JOIN inference_tasks t ON t.node_id = $1 AND t.status = 'completed' AND (t.completed_at AT TIME ZONE 'UTC')::date = d.day
       GROUP BY d.day ORDER BY d.day`,
      [nodeId, days],
      tx,
    );
    return new Map(rows.map((r) => [r.date, Number(r.tokens)]));
  }

  /** The node's completed tasks per model over the last `days` UTC days (today included), as servedByDay counts them. */
  async servedByModel(nodeId: string, days: number, tx?: Tx): Promise<Map<string, { tasks: number; tokens: number }>> {
    const rows = await this.rows<{ model_id: string; tasks: number; tokens: string }>(
      `SELECT t.model_id, count(*)::int AS tasks, coalesce(sum(t.prompt_tokens + t.completion_tokens), 0) AS tokens
       FROM inference_tasks t
       WHERE t.node_id = $1 AND t.status = 'completed'
         AND (t.completed_at AT TIME ZONE 'UTC')::date >= (now() AT TIME ZONE 'UTC')::date - ($2::int - 1)
       GROUP BY t.model_id`,
      [nodeId, days],
      tx,
    );
    return new Map(rows.map((r) => [r.model_id, { tasks: r.tasks, tokens: Number(r.tokens) }]));
  }

  /** Open tasks older than `graceSeconds` (or the one of `streamId`), oldest first, with their node's liveness. */
  open(graceSeconds: number, streamId: string | null, tx?: Tx): Promise<OpenTask[]> {
    return this.rows<OpenTask>(
      `SELECT t.id, t.stream_id, t.status, t.model_id, t.node_id, t.hold_id, t.conversation_id,
              coalesce(${liveNode('n', '$1')}, false) AS node_live,
              t.created_at < now() - make_interval(secs => $2) AS expired
       FROM inference_tasks t LEFT JOIN nodes n ON n.id = t.node_id
       WHERE t.status IN ('queued', 'running') AND t.created_at < now() - make_interval(secs => $3)
         AND ($4::text IS NULL OR t.stream_id = $4)
       ORDER BY t.created_at`,
      [this.config.inference.nodeLiveSeconds, this.config.inference.replyTimeoutSeconds, graceSeconds, streamId],
      tx,
    );
  }

  /** Tasks still open after `seconds`. */
  stuck(seconds: number, tx?: Tx): Promise<Array<{ id: string; stream_id: string; status: string; age: number }>> {
    return this.rows(
      `SELECT id, stream_id, status, extract(epoch FROM now() - created_at)::int AS age FROM inference_tasks
       WHERE status IN ('queued', 'running') AND created_at < now() - make_interval(secs => $1)`,
      [seconds],
      tx,
    );
  }
}
