import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import constants from '@glob/contract/constants.json';
import { decodeKeys, encodeKeys } from '../../common/cursor';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { ConversationsRepository, type ConversationRow, type MessageRow, type MessageStatus as Status } from './conversations.repository';

const NOT_FOUND = 'Conversation not found';
const MESSAGE_NOT_FOUND = 'Message not found';

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

const params = constants.inferenceParamDefaults;
/** A conversation's settings: what it was given, the defaults for the rest (an empty system prompt). */
export const settingsOf = (c: Pick<ConversationRow, 'settings'>): Schemas['ConversationSettings'] => ({
  system_prompt: c.settings.system_prompt ?? '',
  temperature: c.settings.temperature ?? params.temperature,
  max_tokens: c.settings.max_tokens ?? params.max_tokens,
  top_p: c.settings.top_p ?? params.top_p,
});

const message = (m: MessageRow): Schemas['ChatMessage'] => ({
  id: m.id,
  role: m.role,
  content: m.content,
  status: m.status,
  stopped: m.stopped,
  model: m.model,
  tokens: m.tokens,
  timestamp: m.created_at.toISOString(),
});

const encodeCursor = (c: ConversationRow) => encodeKeys([c.is_pinned, c.updated_at.toISOString(), c.id]);
const decodeCursor = (cursor: string) => {
  const [pinned, at, id] = decodeKeys(cursor, ['boolean', 'date', 'string']) as [boolean, string, string];
  return { pinned, at, id };
};

/**
 * Conversations and messages, owner only: another user's conversation is simply not found. Totals and
 * updated_at change in the same transaction as the messages they count.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly transactions: Transactions,
  ) {}

  async list(userId: string, q: { search?: string; limit: number; cursor?: string }): Promise<Schemas['ConversationList']> {
    const rows = await this.conversations.page(userId, q.limit + 1, q.search?.trim() || undefined, q.cursor ? decodeCursor(q.cursor) : null);
    const page = rows.slice(0, q.limit);
    return { conversations: page.map(summary), next_cursor: rows.length > q.limit ? encodeCursor(page.at(-1)!) : null };
  }

  async create(userId: string, input: RequestBody<'createConversation'>): Promise<Schemas['ConversationEnvelope']> {
    const row = await this.conversations.create(userId, (input.title ?? 'New Conversation').trim(), input.model_id, input.settings ?? null);
    return { conversation: { ...summary(row), messages: [], settings: settingsOf(row) } as Schemas['Conversation'] };
  }

  private async owned(userId: string, id: string, lock = false, tx?: Tx): Promise<ConversationRow> {
    const row = await this.conversations.owned(userId, id, lock, tx);
    if (!row) throw new NotFoundException(NOT_FOUND);
    return row;
  }

  messages(conversationId: string, tx?: Tx): Promise<MessageRow[]> {
    return this.conversations.messages(conversationId, tx);
  }

  async get(userId: string, id: string): Promise<Schemas['ConversationEnvelope']> {
    const c = await this.owned(userId, id);
    const { last_message_preview: _, ...full } = summary(c);
    const [messages, active] = await Promise.all([this.messages(id), this.activeStream(id)]);
    return { conversation: { ...full, messages: messages.map(message), settings: settingsOf(c), active_stream: active } };
  }

  /**
   * The reply being generated for a conversation right now, which its messages do not hold yet: the worker saves
   * it, and ends the task, in one transaction when the stream ends.
   */
  private async activeStream(conversationId: string): Promise<Schemas['ActiveStream'] | null> {
    const row = await this.conversations.activeReply(conversationId);
    return row ? { stream_id: row.stream_id, model_id: row.model_id, started_at: row.started_at.toISOString() } : null;
  }

  async update(userId: string, id: string, input: RequestBody<'updateConversation'>): Promise<Schemas['ConversationEnvelope']> {
    await this.owned(userId, id);
    const title = input.title?.trim();
    if (input.title !== undefined && !title) throw new BadRequestException('title: must not be blank');
    await this.conversations.update(userId, id, { title: title ?? null, pinned: input.is_pinned ?? null, settings: input.settings ?? null });
    return this.get(userId, id);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await this.conversations.remove(userId, id))) throw new NotFoundException(NOT_FOUND);
  }

  /** Adds a message and bumps the totals, in one transaction. */
  async append(
    userId: string,
    id: string,
    m: { role: 'user' | 'assistant'; content: string; status?: Status; model?: string | null; tokens?: number; timestamp?: string },
  ): Promise<Schemas['ChatMessage']> {
    return this.transactions.run(async (tx) => {
      await this.owned(userId, id, true, tx);
      const row = await this.conversations.addMessage(
        id,
        {
          role: m.role,
          content: m.content,
          status: m.status ?? 'sent',
          model: m.model ?? null,
          tokens: m.tokens ?? 0,
          timestamp: m.timestamp ?? null,
        },
        tx,
      );
      await this.conversations.addToTotals(id, 1, m.tokens ?? 0, tx);
      return message(row);
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
      const { system_prompt: system, temperature, max_tokens, top_p } = conversation.settings;
      const lines = [
        `# ${conversation.title}`,
        '',
        `Model: ${conversation.model_id} · Exported ${new Date().toISOString()}`,
        `Temperature ${temperature} · max tokens ${max_tokens} · top_p ${top_p}`,
        '',
        ...(system ? ['### System prompt', '', system, ''] : []),
      ];
      for (const m of conversation.messages) {
        lines.push(
          `### ${m.role === 'user' ? 'User' : 'Assistant'}`,
          '',
          `_${m.timestamp}${m.model ? ` · ${m.model}` : ''}${m.tokens ? ` · ${m.tokens} tokens` : ''}${m.stopped ? ' · stopped' : ''}_`,
          '',
          m.content,
          '',
        );
      }
      return { content: lines.join('\n'), filename: `${slug}.md`, format: 'markdown', mime_type: 'text/markdown' };
    }
    return { content: JSON.stringify(conversation, null, 2), filename: `${slug}.json`, format: 'json', mime_type: 'application/json' };
  }

  /**
   * The model's view of a conversation: its saved messages, oldest first; with `before` (a user message of it),
   * only those before that one. Null when `before` is not a user message of the conversation.
   */
  async history(conversationId: string, before?: string): Promise<Array<{ role: 'user' | 'assistant'; content: string }> | null> {
    let rows = await this.messages(conversationId);
    if (before !== undefined) {
      const at = rows.findIndex((m) => m.id === before && m.role === 'user');
      if (at < 0) return null;
      rows = rows.slice(0, at);
    }
    return rows.filter((m) => m.status === 'sent' && m.content).map((m) => ({ role: m.role, content: m.content }));
  }

  /** The settings every turn of the conversation is generated with: its system prompt (empty: none) and sampling. */
  async settings(conversationId: string): Promise<Schemas['ConversationSettings']> {
    return settingsOf((await this.conversations.settings(conversationId)) ?? { settings: {} });
  }

  /**
   * A turn that replaces `userMessageId` and everything after it (a regenerated reply, an edited message): they go,
   * and the new user message is saved, in one transaction. 404 when the conversation has no such user message.
   */
  async replaceFrom(userId: string, id: string, userMessageId: string, m: { content: string; model: string }): Promise<Schemas['ChatMessage']> {
    return this.transactions.run(async (tx) => {
      await this.owned(userId, id, true, tx);
      const gone = await this.conversations.truncateFrom(id, userMessageId, tx);
      if (!gone) throw new NotFoundException(MESSAGE_NOT_FOUND);
      await this.conversations.addToTotals(id, -gone.messages, -gone.tokens, tx);
      const row = await this.conversations.addMessage(
        id,
        { role: 'user', content: m.content, status: 'sent', model: m.model, tokens: 0, timestamp: null },
        tx,
      );
      await this.conversations.addToTotals(id, 1, 0, tx);
      return message(row);
    });
  }

  /**
   * The assistant's reply, saved by the server when its stream ends (whoever is still reading), and the turn's
   * user message given its prompt tokens, so the conversation's total_tokens is what the turn was charged for.
   */
  async saveReply(
    conversationId: string,
    reply: { content: string; tokens: number; model: string; status: Status; stopped: boolean; userMessageId?: string; promptTokens: number },
    tx: Tx,
  ): Promise<void> {
    if (!(await this.conversations.lock(conversationId, tx))) return; // deleted meanwhile
    const counted =
      reply.userMessageId && (await this.conversations.setUserMessageTokens(reply.userMessageId, conversationId, reply.promptTokens, tx));
    await this.conversations.addMessage(
      conversationId,
      // A model can emit a NUL byte, which PostgreSQL cannot store: the reply is saved without it.
      {
        role: 'assistant',
        content: reply.content.replaceAll('\0', ''),
        status: reply.status,
        stopped: reply.stopped,
        model: reply.model,
        tokens: reply.tokens,
        timestamp: null,
      },
      tx,
    );
    await this.conversations.addToTotals(conversationId, 1, reply.tokens + (counted ? reply.promptTokens : 0), tx);
  }

  /** For the inference flow: the conversation exists and is the user's (404 otherwise). */
  async assertOwned(userId: string, id: string): Promise<void> {
    await this.owned(userId, id);
  }
}
