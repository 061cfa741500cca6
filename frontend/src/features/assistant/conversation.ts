import type { QueryClient } from '@tanstack/react-query';
import { redirect } from '@tanstack/react-router';
import { ApiError } from '../../api/errors';
import { GENERATION_PARAMS } from '../../api/queries/inference';
import { chatQueries, type ChatMessage, type Conversation, type ConversationSettings } from '../../api/queries/chat';
import { userId } from '../session/session';
import { readSession } from '../session/state';
import { chatCache } from './cache';
import { LAST_CONVERSATION_KEY, TEXT } from './texts';
import type { UiMessage } from './types';

/** A new conversation's settings: no system prompt, the spec's sampling defaults. */
export const DEFAULT_SETTINGS: ConversationSettings = { system_prompt: '', ...GENERATION_PARAMS };

let counter = 0;
/** An id for a message only this tab knows (the greeting, a turn on its way, a notice). */
export const localId = (prefix: string) => `${prefix}_${Date.now()}_${(counter += 1)}`;

export const greetingMessage = (): UiMessage => ({
  id: localId('greeting'),
  role: 'assistant',
  content: TEXT.greeting,
  timestamp: new Date().toISOString(),
  status: 'sent',
  kind: 'greeting',
});

export const uiMessage = (m: ChatMessage): UiMessage => ({
  id: m.id,
  role: m.role,
  content: m.content,
  timestamp: m.timestamp,
  status: m.status,
  model: m.model,
  tokens: m.tokens,
  ...(m.stopped ? { stopped: true } : {}),
});

/** A finished turn's message as the server saved it (the notices and failed sends of this tab are not among them). */
export const savedMessage = (m: UiMessage): ChatMessage => ({
  id: m.id,
  role: m.role,
  content: m.content,
  timestamp: m.timestamp,
  status: 'sent',
  model: m.model ?? null,
  tokens: m.tokens ?? 0,
  stopped: Boolean(m.stopped),
});

/** A saved conversation as the screen shows it (the local cache keeps the same). */
export const shownConversation = ({ model_id, settings, messages }: Conversation) => ({ model_id, settings, messages: messages.map(uiMessage) });

export const conversationIdOf = (c: Pick<Conversation, 'conversation_id' | 'id'>) => c.conversation_id ?? c.id;

// ---- the remembered conversation (local storage), reopened by /app/assistant ----
function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
export const rememberedConversation = () => storage()?.getItem(LAST_CONVERSATION_KEY) ?? null;
export const remember = (id: string) => storage()?.setItem(LAST_CONVERSATION_KEY, id);
export const forget = () => storage()?.removeItem(LAST_CONVERSATION_KEY);

const signedInUser = () => userId(readSession().user);

/** `beforeLoad` of the assistant: the local cache belongs to the signed-in user (another user's is emptied, and forgotten). */
export async function claimChatCache() {
  const owner = signedInUser();
  if (owner && (await chatCache.ensureUser(owner))) forget();
}

/**
 * `beforeLoad` of /app/assistant: the remembered conversation opens (its URL replaces this one); one the server no
 * longer has is forgotten quietly, and the page starts a new conversation.
 */
export async function openRemembered({ context }: { context: { queryClient: QueryClient } }) {
  const last = rememberedConversation();
  if (!last) return;
  try {
    await context.queryClient.ensureQueryData(chatQueries.conversation(last));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      forget();
      const owner = signedInUser();
      if (owner) void chatCache.deleteConversation(owner, last);
      return;
    }
    // Any other failure: the conversation's page says so (and shows the cached copy).
  }
  throw redirect({ to: '/app/assistant/$conversationId', params: { conversationId: last }, replace: true });
}
