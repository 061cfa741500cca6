import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import {
  chatQueries,
  deleteConversation,
  exportConversation,
  updateConversation,
  type ConversationExportFormat,
  type ConversationSummary,
} from '../../api/queries/chat';
import { Icon } from '../../components/Icon';
import { COLLAPSED_LIMIT, SEARCH_DEBOUNCE_MS, TEXT } from './texts';

/** Saves a file the browser downloads (the server's name and media type). */
export function downloadFile(content: string, filename: string, type: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    if (Object.is(value, debounced)) return undefined;
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms, debounced]);
  return debounced;
}

const shortDate = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString([], { day: 'numeric', month: 'short' });
};

interface Props {
  activeId: string | null;
  collapsed: boolean;
  onToggle: () => void;
  onSelect: (id: string) => void;
  onNew: () => void;
  onStartFirst: () => void;
  onRenamed: (id: string, title: string) => void;
  onDeleted: (id: string) => void;
  onError: (message: string) => void;
}

interface ItemProps {
  c: ConversationSummary;
  active: boolean;
  onSelect: (id: string) => void;
  onRename: (c: ConversationSummary, title: string) => Promise<void>;
  onPin: (c: ConversationSummary) => void;
  onExport: (c: ConversationSummary, format: ConversationExportFormat) => void;
  onDelete: (c: ConversationSummary) => void;
}

function ConversationItem({ c, active, onSelect, onRename, onPin, onExport, onDelete }: ItemProps) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(c.title);
  const [menu, setMenu] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  const startRename = () => {
    setMenu(false);
    setDraft(c.title);
    setEditing(true);
  };
  const cancel = () => {
    setEditing(false);
    setDraft(c.title);
  };
  /** Applied only when the trimmed title is non-empty and changed. */
  const save = async () => {
    const title = draft.trim();
    setEditing(false);
    if (!title || title === c.title) return;
    await onRename(c, title);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      void save();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      cancel();
    }
  };

  return (
    <li className={`conv-item${active ? ' is-active' : ''}`}>
      {editing ? (
        <input
          ref={input}
          className="conv-rename"
          aria-label="Conversation title"
          value={draft}
          maxLength={200}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={cancel}
        />
      ) : (
        <button type="button" className="conv-open" aria-current={active ? 'true' : undefined} onClick={() => onSelect(c.id)}>
          <span className="conv-title">
            {c.is_pinned && <Icon name="pin" size={13} className="conv-pin-mark" />}
            {c.title}
          </span>
          <span className="conv-sub">
            {shortDate(c.updated_at)}
            {c.last_message_preview ? ` · ${c.last_message_preview}` : ''}
          </span>
        </button>
      )}
      {!editing && (
        <button
          ref={menuButton}
          type="button"
          className="conv-more"
          aria-label={`Actions for ${c.title}`}
          aria-expanded={menu}
          aria-controls={menuId}
          onClick={() => setMenu((m) => !m)}
        >
          <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            <circle cx="5" cy="12" r="1.8" fill="currentColor" />
            <circle cx="12" cy="12" r="1.8" fill="currentColor" />
            <circle cx="19" cy="12" r="1.8" fill="currentColor" />
          </svg>
        </button>
      )}
      {menu && !editing && (
        <div
          id={menuId}
          className="conv-actions"
          role="group"
          aria-label={`Actions for ${c.title}`}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              setMenu(false);
              menuButton.current?.focus();
            }
          }}
        >
          <button type="button" onClick={() => (setMenu(false), onPin(c))}>
            {c.is_pinned ? 'Unpin' : 'Pin'}
          </button>
          <button type="button" onClick={startRename}>
            Rename
          </button>
          <button type="button" onClick={() => (setMenu(false), onExport(c, 'json'))}>
            Export JSON
          </button>
          <button type="button" onClick={() => (setMenu(false), onExport(c, 'markdown'))}>
            Export Markdown
          </button>
          <button type="button" className="is-danger" onClick={() => (setMenu(false), onDelete(c))}>
            Delete
          </button>
        </div>
      )}
    </li>
  );
}

/**
 * The collapsible conversation sidebar — server search, a Pinned section, rename (Enter saves, Escape
 * cancels), pin/unpin, export, delete; collapsed, the 10 most recent conversations.
 */
export function ConversationSidebar({ activeId, collapsed, onToggle, onSelect, onNew, onStartFirst, onRenamed, onDeleted, onError }: Props) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  // The previous results stay on screen while a new search runs.
  const list = useInfiniteQuery({ ...chatQueries.list(query), placeholderData: keepPreviousData });
  const listId = useId();

  const conversations = useMemo(() => {
    const seen = new Set<string>();
    return (list.data?.pages ?? []).flatMap((p) => p.conversations).filter((c) => !seen.has(c.id) && seen.add(c.id));
  }, [list.data]);
  const pinned = conversations.filter((c) => c.is_pinned);
  const others = conversations.filter((c) => !c.is_pinned);
  const recent = useMemo(
    () => [...conversations].sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at)).slice(0, COLLAPSED_LIMIT),
    [conversations],
  );

  const refresh = () => queryClient.invalidateQueries({ queryKey: chatQueries.lists() });

  const rename = async (c: ConversationSummary, title: string) => {
    try {
      await updateConversation(c.id, { title });
      onRenamed(c.id, title);
    } catch {
      onError(TEXT.errors.rename);
    } finally {
      void refresh();
    }
  };
  const pin = async (c: ConversationSummary) => {
    try {
      await updateConversation(c.id, { is_pinned: !c.is_pinned });
    } catch {
      onError(`Failed to ${c.is_pinned ? 'unpin' : 'pin'} conversation`);
    } finally {
      void refresh();
    }
  };
  const exportAs = async (c: ConversationSummary, format: ConversationExportFormat) => {
    try {
      const file = await exportConversation(c.id, format);
      downloadFile(file.content, file.filename, file.mime_type);
    } catch {
      onError(TEXT.errors.export);
    }
  };
  const remove = async (c: ConversationSummary) => {
    if (!window.confirm(TEXT.confirmDelete)) return;
    try {
      await deleteConversation(c.id);
      onDeleted(c.id);
    } catch {
      onError(TEXT.errors.delete);
    } finally {
      void refresh();
    }
  };

  const item = (c: ConversationSummary) => (
    <ConversationItem
      key={c.id}
      c={c}
      active={c.id === activeId}
      onSelect={onSelect}
      onRename={rename}
      onPin={(x) => void pin(x)}
      onExport={(x, f) => void exportAs(x, f)}
      onDelete={(x) => void remove(x)}
    />
  );

  let body;
  if (list.isPending) {
    body = (
      <p className="conv-state" role="status">
        <span className="spinner small" aria-hidden="true" /> Loading conversations...
      </p>
    );
  } else if (list.isError && conversations.length === 0) {
    body = (
      <div className="conv-state" role="alert">
        <p>{TEXT.errors.list}</p>
        <button type="button" className="btn btn-sm" onClick={() => void list.refetch()}>
          {TEXT.retry}
        </button>
      </div>
    );
  } else if (conversations.length === 0) {
    body = query ? (
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
  } else if (collapsed) {
    body = (
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
  } else {
    body = (
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
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              maxLength={200}
            />
          </div>
        )}
        {body}
      </div>
    </section>
  );
}
