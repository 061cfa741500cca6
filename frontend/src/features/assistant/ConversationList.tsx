import type { ConversationSummary } from '../../api/queries/chat';
import { Icon } from '../../components/Icon';
import { ConversationItem } from './ConversationItem';
import { TEXT } from './texts';
import type { ConversationActions } from './useConversationActions';
import type { ConversationListState } from './useConversationList';

interface Props {
  state: ConversationListState;
  /** Prefix of the section headings' ids. */
  listId: string;
  activeId: string | null;
  collapsed: boolean;
  actions: ConversationActions;
  onSelect: (id: string) => void;
  onStartFirst: () => void;
}

/** The sidebar's body: loading, error and empty states, or the conversations (collapsed: titles of the most recent only). */
export function ConversationList({ state, listId, activeId, collapsed, actions, onSelect, onStartFirst }: Props) {
  const { list, query, conversations, pinned, others, recent } = state;

  const item = (c: ConversationSummary) => (
    <ConversationItem
      key={c.id}
      c={c}
      active={c.id === activeId}
      onSelect={onSelect}
      onRename={actions.rename}
      onPin={(x) => void actions.pin(x)}
      onExport={(x, f) => void actions.exportAs(x, f)}
      onDelete={(x) => void actions.remove(x)}
    />
  );

  if (list.isPending) {
    return (
      <p className="conv-state" role="status">
        <span className="spinner small" aria-hidden="true" /> Loading conversations...
      </p>
    );
  }
  if (list.isError && conversations.length === 0) {
    return (
      <div className="conv-state" role="alert">
        <p>{TEXT.errors.list}</p>
        <button type="button" className="btn btn-sm" onClick={() => void list.refetch()}>
          {TEXT.retry}
        </button>
      </div>
    );
  }
  if (conversations.length === 0) {
    return query ? (
      <p className="conv-state">No conversations match your search</p>
    ) : (
      <div className="conv-state conv-empty">
        <Icon name="chat" size={28} />
        <p>{TEXT.noConversations}</p>
        <button type="button" className="btn btn-sm btn-primary" onClick={onStartFirst}>
          {TEXT.startFirst}
        </button>
      </div>
    );
  }
  if (collapsed) {
    return (
      <ul className="conv-list conv-recent" aria-label="Recent conversations">
        {recent.map((c) => (
          <li key={c.id} className={`conv-item${c.id === activeId ? ' is-active' : ''}`}>
            <button type="button" className="conv-open" aria-current={c.id === activeId ? 'true' : undefined} onClick={() => onSelect(c.id)}>
              <span className="conv-title">{c.title}</span>
            </button>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <>
      {pinned.length > 0 && (
        <section aria-labelledby={`${listId}-pinned`}>
          <h3 id={`${listId}-pinned`} className="conv-heading">
            {TEXT.pinned}
          </h3>
          <ul className="conv-list">{pinned.map(item)}</ul>
        </section>
      )}
      {others.length > 0 && (
        <section aria-labelledby={`${listId}-recent`}>
          <h3 id={`${listId}-recent`} className="conv-heading">
            Recent
          </h3>
          <ul className="conv-list">{others.map(item)}</ul>
        </section>
      )}
      {list.hasNextPage && (
        <button
          type="button"
          className="btn btn-sm btn-ghost conv-more-page"
          onClick={() => void list.fetchNextPage()}
          disabled={list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? 'Loading...' : 'Load more'}
        </button>
      )}
    </>
  );
}
