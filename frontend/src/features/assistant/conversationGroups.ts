import type { ConversationSummary } from '../../api/queries/chat';
import { COLLAPSED_LIMIT } from './texts';

/** Pages can overlap while conversations move up the list: each conversation is kept once, first seen wins. */
export function uniqueConversations(pages: ReadonlyArray<{ conversations: ConversationSummary[] }>): ConversationSummary[] {
  const seen = new Set<string>();
  return pages.flatMap((p) => p.conversations).filter((c) => !seen.has(c.id) && seen.add(c.id));
}

/** Expanded, pinned conversations come first under a heading of their own. */
export function splitPinned(conversations: ConversationSummary[]) {
  return { pinned: conversations.filter((c) => c.is_pinned), others: conversations.filter((c) => !c.is_pinned) };
}

/** Collapsed, the most recently updated conversations, newest first. */
export function mostRecent(conversations: ConversationSummary[]): ConversationSummary[] {
  return [...conversations].sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at)).slice(0, COLLAPSED_LIMIT);
}
