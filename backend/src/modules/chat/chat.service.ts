import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { decodeKeys, encodeKeys } from '../../common/cursor';
import type { RequestBody, Schemas } from '../../contract/types';
import { rowsOf } from '../../database/sql';

type Status = Schemas['ChatMessageStatus'];

interface ConversationRow {
  id: string;
  title: string;
  model_id: string;
  is_pinned: boolean;
  total_messages: number;
  total_tokens: number;
  created_at: Date;
  updated_at: Date;
  last_message_preview?: string | null;
}

interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  status: Status;
  model: string | null;
  tokens: number;
  created_at: Date;
}

const NOT_FOUND = 'Conversation not found';
const COLUMNS = 'c.id, c.title, c.model_id, c.is_pinned, c.total_messages, c.total_tokens, c.created_at, c.updated_at';

const summary = (c: ConversationRow): Schemas['ConversationSummary'] => ({
  conversation_id: c.id,
  id: c.id,
  title: c.title,
  model_id: c.model_id,
  is_pinned: c.is_pinned,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
  metadata: { total_messages: c.total_messages, total_tokens: c.total_tokens },
  last_message_preview: c.last_message_preview ?? null,
});

const message = (m: MessageRow): Schemas['ChatMessage'] => ({
  id: m.id,
  role: m.role,
  content: m.content,
  status: m.status,
  model: m.model,
  tokens: m.tokens,
  timestamp: m.created_at.toISOString(),
});

const encodeCursor = (c: ConversationRow) => encodeKeys([c.is_pinned, c.updated_at.toISOString(), c.id]);
const decodeCursor = (cursor: string) => decodeKeys(cursor, ['boolean', 'date', 'string']) as [boolean, string, string];

/** `50%_off` searched literally: LIKE wildcards escaped. */
const likePattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Conversations and messages, owner only: another user's conversation is simply not found. Totals and
 * updated_at change in the same transaction as the messages they count.
 */
@Injectable()
export class ChatService {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async list(userId: string, q: { search?: string; limit: number; cursor?: string }): Promise<Schemas['ConversationList']> {
    const params: unknown[] = [userId, q.limit + 1];
    const where = ['c.user_id = $1'];
    const search = q.search?.trim();
    if (search) {
      const p = `$${params.push(likePattern(search))}`;
      where.push(`(lower(c.title) LIKE ${p} OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND lower(m.content) LIKE ${p}))`);
    }
    if (q.cursor) {
      const [pinned, at, id] = decodeCursor(q.cursor);
      where.push(
        `(c.is_pinned::int, c.updated_at, c.id) < ($${params.push(pinned ? 1 : 0)}, $${params.push(at)}::timestamptz, $${params.push(id)}::uuid)`,
      );
    }
    const rows = (await this.db.query(
      `SELECT ${COLUMNS},
              (SELECT left(m.content, 200) FROM messages m WHERE m.conversation_id = c.id ORDER BY m.created_at DESC, m.seq DESC LIMIT 1) AS last_message_preview
       FROM conversations c WHERE ${where.join(' AND ')}
       ORDER BY c.is_pinned::int DESC, c.updated_at DESC, c.id DESC LIMIT $2`,
      params,
    )) as ConversationRow[];
    const page = rows.slice(0, q.limit);
    return { conversations: page.map(summary), next_cursor: rows.length > q.limit ? encodeCursor(page.at(-1)!) : null };
  }

  async create(userId: string, input: RequestBody<'createConversation'>): Promise<Schemas['ConversationEnvelope']> {
    const [row] = (await this.db.query(`INSERT INTO conversations (user_id, title, model_id) VALUES ($1, $2, $3) RETURNING *`, [
      userId,
      (input.title ?? 'New Conversation').trim(),
      input.model_id,
    ])) as ConversationRow[];
    return { conversation: { ...summary(row!), messages: [] } as Schemas['Conversation'] };
  }

  private async owned(userId: string, id: string, em: EntityManager = this.db.manager, lock = false): Promise<ConversationRow> {
    const [row] = (await em.query(`SELECT ${COLUMNS} FROM conversations c WHERE c.id = $1 AND c.user_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
      id,
      userId,
    ])) as ConversationRow[];
    if (!row) throw new NotFoundException(NOT_FOUND);
    return row;
  }

  async messages(conversationId: string, em: EntityManager = this.db.manager): Promise<MessageRow[]> {
    return (await em.query(
      `SELECT id, role, content, status, model, tokens, created_at FROM messages WHERE conversation_id = $1 ORDER BY created_at, seq`,
      [conversationId],
    )) as MessageRow[];
  }

  async get(userId: string, id: string): Promise<Schemas['ConversationEnvelope']> {
    const c = await this.owned(userId, id);
    const { last_message_preview: _, ...full } = summary(c);
    const [messages, active] = await Promise.all([this.messages(id), this.activeStream(id)]);
    return { conversation: { ...full, messages: messages.map(message), active_stream: active } };
  }

  /**
   * The reply being generated for a conversation right now (its task queued or running; the newest), which its
   * messages do not hold yet: the worker saves it, and ends the task, in one transaction when the stream ends.
   */
  private async activeStream(conversationId: string): Promise<Schemas['ActiveStream'] | null> {
    const [row] = (await this.db.query(
      `SELECT stream_id, model_id, coalesce(started_at, created_at) AS started_at FROM inference_tasks
       WHERE conversation_id = $1 AND status IN ('queued', 'running') AND stream_id IS NOT NULL
       ORDER BY created_at DESC LIMIT 1`,
      [conversationId],
    )) as Array<{ stream_id: string; model_id: string; started_at: Date }>;
    return row ? { stream_id: row.stream_id, model_id: row.model_id, started_at: row.started_at.toISOString() } : null;
  }

  async update(userId: string, id: string, input: RequestBody<'updateConversation'>): Promise<Schemas['ConversationEnvelope']> {
    await this.owned(userId, id);
    const title = input.title?.trim();
    if (input.title !== undefined && !title) throw new BadRequestException('title: must not be blank');
    await this.db.query(
      `UPDATE conversations SET title = coalesce($3, title), is_pinned = coalesce($4, is_pinned), updated_at = now() WHERE id = $1 AND user_id = $2`,
      [id, userId, title ?? null, input.is_pinned ?? null],
    );
    return this.get(userId, id);
  }

  async remove(userId: string, id: string): Promise<void> {
    const deleted = rowsOf(await this.db.query(`DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id`, [id, userId]));
    if (deleted.length === 0) throw new NotFoundException(NOT_FOUND);
  }

  /** Adds a message and bumps the totals, in one transaction. */
  async append(
    userId: string,
    id: string,
    m: { role: 'user' | 'assistant'; content: string; status?: Status; model?: string | null; tokens?: number; timestamp?: string },
  ): Promise<Schemas['ChatMessage']> {
    return this.db.transaction(async (em) => {
      await this.owned(userId, id, em, true);
      const [row] = (await em.query(
        `INSERT INTO messages (conversation_id, role, content, status, model, tokens, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()))
         RETURNING id, role, content, status, model, tokens, created_at`,
        [id, m.role, m.content, m.status ?? 'sent', m.model ?? null, m.tokens ?? 0, m.timestamp ?? null],
      )) as MessageRow[];
      await em.query(
        `UPDATE conversations SET total_messages = total_messages + 1, total_tokens = total_tokens + $2, updated_at = now() WHERE id = $1`,
        [id, m.tokens ?? 0],
      );
      return message(row!);
    });
  }

  addMessage(userId: string, id: string, input: RequestBody<'addMessage'>): Promise<Schemas['ChatMessageEnvelope']> {
    return this.append(userId, id, input.message).then((m) => ({ message: m }));
  }

  async export(userId: string, id: string, format: Schemas['ConversationExportFormat']): Promise<Schemas['ConversationExport']> {
    const {
      conversation: { active_stream: _, ...conversation },
    } = await this.get(userId, id);
    const slug =
      conversation.title
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 80) || 'conversation';
    if (format === 'markdown') {
      const lines = [`# ${conversation.title}`, '', `Model: ${conversation.model_id} · Exported ${new Date().toISOString()}`, ''];
      for (const m of conversation.messages) {
        lines.push(
          `### ${m.role === 'user' ? 'User' : 'Assistant'}`,
          '',
          `_${m.timestamp}${m.model ? ` · ${m.model}` : ''}${m.tokens ? ` · ${m.tokens} tokens` : ''}_`,
          '',
          m.content,
          '',
        );
      }
      return { content: lines.join('\n'), filename: `${slug}.md`, format: 'markdown', mime_type: 'text/markdown' };
    }
    return { content: JSON.stringify(conversation, null, 2), filename: `${slug}.json`, format: 'json', mime_type: 'application/json' };
  }

  /** The model's view of a conversation: its saved messages, oldest first. */
  async history(conversationId: string): Promise<Array<{ role: 'user' | 'assistant'; content: string }>> {
    const rows = await this.messages(conversationId);
    return rows.filter((m) => m.status === 'sent' && m.content).map((m) => ({ role: m.role, content: m.content }));
  }

  /**
   * The assistant's reply, saved by the server when its stream ends (whoever is still reading), and the turn's
   * user message given its prompt tokens, so the conversation's total_tokens is what the turn was charged for.
   */
  async saveReply(
    em: EntityManager,
    conversationId: string,
    reply: { content: string; tokens: number; model: string; status: Status; userMessageId?: string; promptTokens: number },
  ): Promise<void> {
    const [c] = (await em.query(`SELECT id FROM conversations WHERE id = $1 FOR UPDATE`, [conversationId])) as unknown[];
    if (!c) return; // deleted meanwhile
    let promptTokens = 0;
    if (reply.userMessageId) {
      const [updated] = (await em.query(
        `WITH u AS (UPDATE messages SET tokens = $3 WHERE id = $1 AND conversation_id = $2 AND role = 'user' RETURNING id) SELECT count(*)::int AS n FROM u`,
        [reply.userMessageId, conversationId, reply.promptTokens],
      )) as Array<{ n: number }>;
      if (updated!.n > 0) promptTokens = reply.promptTokens;
    }
    await em.query(`INSERT INTO messages (conversation_id, role, content, status, model, tokens) VALUES ($1, 'assistant', $2, $3, $4, $5)`, [
      conversationId,
      // A model can emit a NUL byte, which PostgreSQL cannot store: the reply is saved without it.
      reply.content.replace(/\u0000/g, ''),
      reply.status,
      reply.model,
      reply.tokens,
    ]);
    await em.query(
      `UPDATE conversations SET total_messages = total_messages + 1, total_tokens = total_tokens + $2, updated_at = now() WHERE id = $1`,
      [conversationId, reply.tokens + promptTokens],
    );
  }

  /** For the inference flow: the conversation exists and is the user's (404 otherwise). */
  async assertOwned(userId: string, id: string): Promise<void> {
    await this.owned(userId, id);
  }
}
