import constants from '@glob/contract/constants.json';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ConversationExportFormat, ConversationSummary } from '../../api/queries/chat';
import { Icon } from '../../components/Icon';
import { LOCALE } from '../../components/format';

const shortDate = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString(LOCALE, { day: 'numeric', month: 'short' });
};

interface Props {
  c: ConversationSummary;
  active: boolean;
  onSelect: (id: string) => void;
  onRename: (c: ConversationSummary, title: string) => Promise<void>;
  onPin: (c: ConversationSummary) => void;
  onExport: (c: ConversationSummary, format: ConversationExportFormat) => void;
  onDelete: (c: ConversationSummary) => void;
}

/** One conversation of the expanded list: opens it, or renames it in place (Enter saves, Escape cancels), or opens its actions. */
export function ConversationItem({ c, active, onSelect, onRename, onPin, onExport, onDelete }: Props) {
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
          maxLength={constants.fieldLimits.ConversationUpdate.title.maxLength}
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
