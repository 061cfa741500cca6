import constants from '@glob/contract/constants.json';
import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

export type MessageStatus = Schemas['ChatMessageStatus'];

export interface ConversationRow {
  id: string;
  title: string;
  model_id: string;
  is_pinned: boolean;
  total_messages: number;
  total_tokens: number;
  created_at: Date;
  updated_at: Date;
  last_message_preview?: string | null;
  /** As given (jsonb): what is left out takes its default when read. */
  settings: Partial<Schemas['ConversationSettings']>;
}

export interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  status: MessageStatus;
  stopped: boolean;
  model: string | null;
  tokens: number;
  created_at: Date;
}

export interface NewMessage {
  role: 'user' | 'assistant';
  content: string;
  status: MessageStatus;
  /** A reply its requester stopped (false when absent). */
  stopped?: boolean;
  model: string | null;
  tokens: number;
  /** When the client wrote it; now when absent. */
  timestamp: string | null;
}

/** Where a page of conversations starts: after the row with these sort keys. */
export interface ConversationCursor {
  pinned: boolean;
  at: string;
  id: string;
}

const COLUMNS = 'c.id, c.title, c.model_id, c.is_pinned, c.total_messages, c.total_tokens, c.created_at, c.updated_at, c.settings';
const MESSAGE = 'id, role, content, status, stopped, model, tokens, created_at';
/** How much of the last message a list shows: the spec's ConversationSummary.last_message_preview (an integer). */
const PREVIEW_LENGTH = Math.trunc(constants.fieldLimits.ConversationSummary.last_message_preview.maxLength);

/** `50%_off` searched literally: LIKE wildcards escaped. */
const likePattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The conversations and messages tables. */
@Injectable()
export class ConversationsRepository extends Repository {
  /** The user's conversations, pinned first then newest, with their last message's start; `search` in titles and messages. */
  page(userId: string, limit: number, search: string | undefined, after: ConversationCursor | null, tx?: Tx): Promise<ConversationRow[]> {
    const params: unknown[] = [userId, limit];
    const where = ['c.user_id = $1'];
    if (search) {
      const p = `$${params.push(likePattern(search))}`;
      where.push(`(lower(c.title) LIKE ${p} OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND lower(m.content) LIKE ${p}))`);
    }
    if (after) {
      where.push(
        `(c.is_pinned::int, c.updated_at, c.id) < ($${params.push(after.pinned ? 1 : 0)}, $${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`,
      );
    }
    return this.rows<ConversationRow>(
      `SELECT ${COLUMNS},
              (SELECT left(m.content, ${PREVIEW_LENGTH}) FROM messages m WHERE m.conversation_id = c.id ORDER BY m.created_at DESC, m.seq DESC LIMIT 1) AS last_message_preview
       FROM conversations c WHERE ${where.join(' AND ')}
       ORDER BY c.is_pinned::int DESC, c.updated_at DESC, c.id DESC LIMIT $2`,
      params,
      tx,
    );
  }

  async create(userId: string, title: string, modelId: string, settings: Schemas['ConversationSettings'] | null, tx?: Tx): Promise<ConversationRow> {
    return (await this.one<ConversationRow>(
      `INSERT INTO conversations (user_id, title, model_id, settings) VALUES ($1, $2, $3, coalesce($4::jsonb, '{}'::jsonb)) RETURNING *`,
      [userId, title, modelId, settings ? JSON.stringify(settings) : null],
      tx,
    ))!;
  }

  /** The user's conversation (undefined for anyone else's); `lock` holds it until the transaction ends. */
  owned(userId: string, id: string, lock: boolean, tx?: Tx): Promise<ConversationRow | undefined> {
    return this.one<ConversationRow>(
      `SELECT ${COLUMNS} FROM conversations c WHERE c.id = $1 AND c.user_id = $2 ${lock ? 'FOR UPDATE' : ''}`,
      [id, userId],
      tx,
    );
  }

  /** A conversation's settings as stored, whoever owns it. */
  settings(conversationId: string, tx?: Tx): Promise<Pick<ConversationRow, 'settings'> | undefined> {
    return this.one<Pick<ConversationRow, 'settings'>>(`SELECT settings FROM conversations WHERE id = $1`, [conversationId], tx);
  }

  /** Locks a conversation, whoever owns it; false when it no longer exists. */
  async lock(id: string, tx: Tx): Promise<boolean> {
    return (await this.count(`SELECT id FROM conversations WHERE id = $1 FOR UPDATE`, [id], tx)) > 0;
  }

  async update(
    userId: string,
    id: string,
    c: { title: string | null; pinned: boolean | null; settings: Schemas['ConversationSettings'] | null },
    tx?: Tx,
  ): Promise<void> {
    await this.rows(
      `UPDATE conversations SET title = coalesce($3, title), is_pinned = coalesce($4, is_pinned),
              settings = coalesce($5::jsonb, settings), updated_at = now() WHERE id = $1 AND user_id = $2`,
      [id, userId, c.title, c.pinned, c.settings ? JSON.stringify(c.settings) : null],
      tx,
    );
  }

  /** False when the user has no such conversation. */
  async remove(userId: string, id: string, tx?: Tx): Promise<boolean> {
    return (await this.count(`DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id`, [id, userId], tx)) > 0;
  }

  /** Every conversation of the user, with its messages (the account is deleted). */
  async removeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM conversations WHERE user_id = $1`, [userId], tx);
  }

  /** Oldest first. */
  messages(conversationId: string, tx?: Tx): Promise<MessageRow[]> {
    return this.rows<MessageRow>(`SELECT ${MESSAGE} FROM messages WHERE conversation_id = $1 ORDER BY created_at, seq`, [conversationId], tx);
  }

  async addMessage(conversationId: string, m: NewMessage, tx: Tx): Promise<MessageRow> {
    return (await this.one<MessageRow>(
      `INSERT INTO messages (conversation_id, role, content, status, model, tokens, created_at, stopped)
       VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()), $8)
       RETURNING ${MESSAGE}`,
      [conversationId, m.role, m.content, m.status, m.model, m.tokens, m.timestamp, m.stopped ?? false],
      tx,
    ))!;
  }

  /** Sets a user message's tokens; false when it is not a user message of this conversation. */
  async setUserMessageTokens(messageId: string, conversationId: string, tokens: number, tx: Tx): Promise<boolean> {
    return (
      (await this.count(
        `UPDATE messages SET tokens = $3 WHERE id = $1 AND conversation_id = $2 AND role = 'user' RETURNING id`,
        [messageId, conversationId, tokens],
        tx,
      )) > 0
    );
  }

  /**
   * Deletes a user message of the conversation and every message after it (a turn replaced by a regenerated or
   * edited one); null when the conversation has no such user message, else what went.
   */
  async truncateFrom(conversationId: string, userMessageId: string, tx: Tx): Promise<{ messages: number; tokens: number } | null> {
    const from = await this.one<{ created_at: Date; seq: string }>(
      `SELECT created_at, seq FROM messages WHERE id = $1 AND conversation_id = $2 AND role = 'user'`,
      [userMessageId, conversationId],
      tx,
    );
    if (!from) return null;
    const gone = await this.one<{ messages: number; tokens: number }>(
      `WITH gone AS (
         DELETE FROM messages WHERE conversation_id = $1 AND (created_at, seq) >= ($2::timestamptz, $3::bigint) RETURNING tokens)
       SELECT count(*)::int AS messages, coalesce(sum(tokens), 0)::int AS tokens FROM gone`,
      [conversationId, from.created_at, from.seq],
      tx,
    );
    return gone!;
  }

  /** Counts messages and tokens added to a conversation, which becomes the most recently updated. */
  async addToTotals(conversationId: string, messages: number, tokens: number, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE conversations SET total_messages = total_messages + $2, total_tokens = total_tokens + $3, updated_at = now() WHERE id = $1`,
      [conversationId, messages, tokens],
      tx,
    );
  }

  /** The reply being generated for the conversation (its task queued or running; the newest), if any. */
  activeReply(conversationId: string, tx?: Tx): Promise<{ stream_id: string; model_id: string; started_at: Date } | undefined> {
    return this.one(
      `SELECT stream_id, model_id, coalesce(started_at, created_at) AS started_at FROM inference_tasks
       WHERE conversation_id = $1 AND status IN ('queued', 'running') AND stream_id IS NOT NULL
       ORDER BY created_at DESC LIMIT 1`,
      [conversationId],
      tx,
    );
  }
}
