import constants from '@glob/contract/constants.json';
import { useId } from 'react';
import { Icon } from '../../components/Icon';
import { ConversationList } from './ConversationList';
import { useConversationActions } from './useConversationActions';
import { useConversationList } from './useConversationList';

interface Props {
  activeId: string | null;
  collapsed: boolean;
  onToggle: () => void;
  onSelect: (id: string) => void;
  onNew: () => void;
  onStartFirst: () => void;
  onDeleted: (id: string) => void;
  onError: (message: string) => void;
}

/**
 * The collapsible conversation sidebar — server search, a Pinned section, rename (Enter saves, Escape
 * cancels), pin/unpin, export, delete; collapsed, the 10 most recent conversations.
 */
export function ConversationSidebar({ activeId, collapsed, onToggle, onSelect, onNew, onStartFirst, onDeleted, onError }: Props) {
  const state = useConversationList();
  const actions = useConversationActions({ onDeleted, onError });
  const listId = useId();

  return (
    <section className={`conv-sidebar${collapsed ? ' is-collapsed' : ''}`} aria-labelledby={`${listId}-title`}>
      <div className="conv-top">
        <h2 id={`${listId}-title`} className="conv-sidebar-title">
          Conversations
        </h2>
        <button type="button" className="conv-icon-btn" onClick={onNew} aria-label="New conversation" title="New conversation">
          <svg
            width="18"
            height="18"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth={2}
            strokeLinecap="round"
            aria-hidden="true"
            focusable="false"
          >
            <path d="M12 5v14M5 12h14" />
          </svg>
        </button>
        <button
          type="button"
          className="conv-icon-btn"
          onClick={onToggle}
          aria-expanded={!collapsed}
          aria-controls={`${listId}-body`}
          aria-label={collapsed ? 'Expand conversation list' : 'Collapse conversation list'}
          title={collapsed ? 'Expand conversation list' : 'Collapse conversation list'}
        >
          <Icon name={collapsed ? 'menu' : 'arrowLeft'} size={18} />
        </button>
      </div>
      <div id={`${listId}-body`} className="conv-body">
        {!collapsed && (
          <div className="conv-search">
            <label htmlFor={`${listId}-search`} className="visually-hidden">
              Search conversations
            </label>
            <input
              id={`${listId}-search`}
              type="search"
              placeholder="Search conversations..."
              value={state.search}
              onChange={(e) => state.setSearch(e.target.value)}
              maxLength={constants.fieldLimits.listConversations.search.maxLength}
            />
          </div>
        )}
        <ConversationList
          state={state}
          listId={listId}
          activeId={activeId}
          collapsed={collapsed}
          actions={actions}
          onSelect={onSelect}
          onStartFirst={onStartFirst}
        />
      </div>
    </section>
  );
}
