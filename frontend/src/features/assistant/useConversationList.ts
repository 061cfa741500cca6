import { useMemo, useState } from 'react';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { chatQueries } from '../../api/queries/chat';
import { mostRecent, splitPinned, uniqueConversations } from './conversationGroups';
import { SEARCH_DEBOUNCE_MS } from './texts';
import { useDebounced } from './useDebounced';

/** The sidebar's search box and the server's pages of conversations for it. */
export function useConversationList() {
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  // The previous results stay on screen while a new search runs.
  const list = useInfiniteQuery({ ...chatQueries.list(query), placeholderData: keepPreviousData });
  const conversations = useMemo(() => uniqueConversations(list.data?.pages ?? []), [list.data]);
  const { pinned, others } = splitPinned(conversations);
  const recent = useMemo(() => mostRecent(conversations), [conversations]);
  return { search, setSearch, query, list, conversations, pinned, others, recent };
}

export type ConversationListState = ReturnType<typeof useConversationList>;
