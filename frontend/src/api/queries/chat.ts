import { infiniteQueryOptions, mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type Conversation = components['schemas']['Conversation'];
export type ConversationSummary = components['schemas']['ConversationSummary'];
/** The reply being generated for a conversation right now (given by GET /api/chat/conversations/{id}). */
export type ActiveStream = components['schemas']['ActiveStream'];
export type ConversationExport = components['schemas']['ConversationExport'];
export type ConversationExportFormat = components['schemas']['ConversationExportFormat'];
export type ConversationSettings = components['schemas']['ConversationSettings'];
export type ChatMessage = components['schemas']['ChatMessage'];

/** Conversations per page of the list. */
export const CONVERSATIONS_PAGE = 50;

/** GET /api/chat/conversations/{id} — with its messages, oldest first, and its `active_stream` (null when none). */
export async function getConversation(id: string): Promise<Conversation> {
  const { conversation } = await unwrap(api.GET('/api/chat/conversations/{id}', { params: { path: { id } } }));
  return conversation;
}

/** POST /api/chat/conversations. */
async function createConversation(title: string, modelId: string, settings?: ConversationSettings): Promise<Conversation> {
  const { conversation } = await unwrap(
    api.POST('/api/chat/conversations', { body: { title, model_id: modelId, ...(settings ? { settings } : {}) } }),
  );
  return conversation;
}

/** PUT /api/chat/conversations/{id} — rename, pin, and/or its settings. */
async function updateConversation(id: string, body: { title?: string; is_pinned?: boolean; settings?: ConversationSettings }): Promise<Conversation> {
  const { conversation } = await unwrap(api.PUT('/api/chat/conversations/{id}', { params: { path: { id } }, body }));
  return conversation;
}

/** DELETE /api/chat/conversations/{id}. */
async function deleteConversation(id: string): Promise<void> {
  await unwrap(api.DELETE('/api/chat/conversations/{id}', { params: { path: { id } } }));
}

/** GET /api/chat/conversations/{id}/export — the file's text, name and media type. */
export function exportConversation(id: string, format: ConversationExportFormat = 'json'): Promise<ConversationExport> {
  return unwrap(api.GET('/api/chat/conversations/{id}/export', { params: { path: { id }, query: { format } } }));
}

export const chatQueries = {
  all: ['chat'] as const,
  lists: () => [...chatQueries.all, 'conversations'] as const,
  /** One conversation with its messages (outside `lists()`, so a list refresh leaves it alone); a failure is shown, not retried. */
  conversation: (id: string) =>
    queryOptions({
      queryKey: [...chatQueries.all, 'conversation', id] as const,
      queryFn: () => getConversation(id),
      retry: false,
    }),
  /** Pinned first, then most recently updated; `search` filters titles and message text on the server. */
  list: (search: string) =>
    infiniteQueryOptions({
      queryKey: [...chatQueries.lists(), { search }] as const,
      queryFn: ({ pageParam, signal }) =>
        unwrap(
          api.GET('/api/chat/conversations', {
            params: { query: { limit: CONVERSATIONS_PAGE, ...(search ? { search } : {}), ...(pageParam ? { cursor: pageParam } : {}) } },
            signal,
          }),
        ),
      initialPageParam: '' as string,
      getNextPageParam: (last) => last.next_cursor ?? undefined,
      retry: false,
    }),
};

export const chatMutations = {
  /** A new conversation; the list reloads to show it. */
  create: () =>
    mutationOptions({
      mutationKey: [...chatQueries.all, 'create'] as const,
      mutationFn: ({ title, modelId, settings }: { title: string; modelId: string; settings?: ConversationSettings }) =>
        createConversation(title, modelId, settings),
      onSuccess: (_conversation, _vars, _ctx, { client }) => {
        void client.invalidateQueries({ queryKey: chatQueries.lists() });
      },
    }),
  /** Rename, pin and/or settings; the open conversation takes the server's answer, the list reloads whether or not it worked. */
  update: () =>
    mutationOptions({
      mutationKey: [...chatQueries.all, 'update'] as const,
      mutationFn: ({ id, ...body }: { id: string; title?: string; is_pinned?: boolean; settings?: ConversationSettings }) =>
        updateConversation(id, body),
      onSuccess: ({ title, is_pinned, settings, updated_at }, { id }, _ctx, { client }) => {
        client.setQueryData(chatQueries.conversation(id).queryKey, (old) => old && { ...old, title, is_pinned, settings, updated_at });
      },
      onSettled: (_conversation, _error, _vars, _ctx, { client }) => {
        void client.invalidateQueries({ queryKey: chatQueries.lists() });
      },
    }),
  /** Delete; the list reloads whether or not it worked. */
  remove: () =>
    mutationOptions({
      mutationKey: [...chatQueries.all, 'delete'] as const,
      mutationFn: (id: string) => deleteConversation(id),
      onSettled: (_nothing, _error, _id, _ctx, { client }) => {
        void client.invalidateQueries({ queryKey: chatQueries.lists() });
      },
    }),
};

/** Writes a finished turn into the cached conversation: its messages up to `cut`, then `turn` (what the server saved). */
export function saveTurn(client: QueryClient, id: string, cut: number, turn: ChatMessage[]) {
  client.setQueryData(chatQueries.conversation(id).queryKey, (old) => old && { ...old, messages: [...old.messages.slice(0, cut), ...turn] });
}
