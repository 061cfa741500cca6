import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { CopyButton } from '../../components/CopyButton';
import { Icon } from '../../components/Icon';
import { LOCALE } from '../../components/format';
import { Markdown } from './markdown/Markdown';
import { REPLY_TEXT } from './reply-texts';
import { TEXT } from './texts';
import type { UiMessage } from './types';

const time = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(LOCALE, { hour: '2-digit', minute: '2-digit' });
};

function ErrorIcon() {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      aria-hidden="true"
      focusable="false"
    >
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7.5v5.5M12 16.5h.01" />
    </svg>
  );
}

/** The notice for INSUFFICIENT_TOKENS. */
function InsufficientNotice() {
  return (
    <div className="assistant-notice">
      <p className="assistant-notice-title">
        <strong>{TEXT.insufficientTitle}</strong>
      </p>
      <p>
        You don&apos;t have enough GLB tokens for this message. Buy tokens in the <Link to="/app/wallet">Token Wallet</Link>, check your balance, or
        share resources with the desktop app to earn more.
      </p>
      <p>Your conversation is saved.</p>
    </div>
  );
}

interface Props {
  message: UiMessage;
  onRetry: (id: string) => void;
  canRetry: boolean;
  /** Regenerates this reply (only the last reply has it, and not while one streams). */
  onRegenerate?: () => void;
  /** Sends an edited text in place of this user message (not while a reply streams). */
  onEdit?: (text: string) => void;
  /** The display name of a model id (the id itself when unknown). */
  modelName?: (id: string) => string;
}

export function MessageBubble({ message, onRetry, canRetry, onRegenerate, onEdit, modelName = (id) => id }: Props) {
  const isUser = message.role === 'user';
  const streaming = message.status === 'streaming';
  const [editing, setEditing] = useState<string | null>(null);
  if (editing !== null && isUser) {
    return (
      <form
        className="assistant-msg is-user is-editing"
        onSubmit={(e) => {
          e.preventDefault();
          if (!editing.trim() || !onEdit) return;
          onEdit(editing);
          setEditing(null);
        }}
      >
        <label className="visually-hidden" htmlFor={`edit-${message.id}`}>
          {REPLY_TEXT.editLabel}
        </label>
        <textarea
          id={`edit-${message.id}`}
          className="assistant-edit"
          value={editing}
          onChange={(e) => setEditing(e.target.value)}
          onKeyDown={(e) => e.key === 'Escape' && setEditing(null)}
          rows={Math.min(8, editing.split('\n').length + 1)}
          autoFocus
        />
        <div className="assistant-msg-actions">
          <button type="submit" className="btn btn-sm btn-primary" disabled={!editing.trim() || !onEdit}>
            {REPLY_TEXT.saveAndSend}
          </button>
          <button type="button" className="btn btn-sm" onClick={() => setEditing(null)}>
            {REPLY_TEXT.cancel}
          </button>
        </div>
      </form>
    );
  }
  const actionable = !message.kind && Boolean(message.content) && !streaming;
  return (
    <div
      className={`assistant-msg ${isUser ? 'is-user' : 'is-assistant'}${message.kind ? ` is-${message.kind}` : ''}${message.status === 'error' ? ' is-error' : ''}`}
      data-status={message.status}
      aria-busy={streaming || undefined}
    >
      <div className="assistant-msg-meta">
        <span className="assistant-msg-role">{isUser ? 'You' : 'Assistant'}</span>
        <time dateTime={message.timestamp}>{time(message.timestamp)}</time>
        {!isUser && message.status === 'sent' && (
          <span className="assistant-msg-sent" title="Sent">
            <Icon name="check" size={14} />
            <span className="visually-hidden">Sent</span>
          </span>
        )}
        {!isUser && message.stopped && <span className="assistant-msg-stopped">{REPLY_TEXT.stopped}</span>}
      </div>
      <div className="assistant-msg-body">
        {message.kind === 'insufficient' ? (
          <InsufficientNotice />
        ) : !message.content ? null : isUser || message.kind ? (
          // What the user typed (and the app's own notices) stays plain text.
          <p className="assistant-msg-text assistant-msg-content">{message.content}</p>
        ) : (
          <Markdown text={message.content} streaming={streaming} />
        )}
        {streaming && (
          <p className="assistant-msg-generating" role="status">
            <span className="assistant-dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {TEXT.generating}
          </p>
        )}
      </div>
      {!isUser && message.status === 'sent' && !message.kind && (message.tokens !== undefined || message.model) && (
        <p className="assistant-msg-usage">
          {message.tokens !== undefined && <span>{`${message.tokens} ${message.tokens === 1 ? 'token' : 'tokens'}`}</span>}
          {message.model && <span>{modelName(message.model)}</span>}
        </p>
      )}
      {actionable && (
        <div className="assistant-msg-actions" role="group" aria-label={REPLY_TEXT.actionsLabel}>
          <CopyButton
            text={message.content}
            label={REPLY_TEXT.copy}
            copiedLabel={REPLY_TEXT.copied}
            failedLabel={REPLY_TEXT.copyFailed}
            className="assistant-link"
          />
          {!isUser && onRegenerate && (
            <button type="button" className="assistant-link" onClick={onRegenerate}>
              {REPLY_TEXT.regenerate}
            </button>
          )}
          {isUser && onEdit && message.status === 'sent' && (
            <button type="button" className="assistant-link" onClick={() => setEditing(message.content)}>
              {REPLY_TEXT.edit}
            </button>
          )}
        </div>
      )}
      {isUser && message.status === 'error' && (
        <p className="assistant-msg-failed">
          <ErrorIcon />
          <span>Failed to send.</span>
          <button type="button" className="assistant-link" onClick={() => onRetry(message.id)} disabled={!canRetry}>
            {TEXT.retry}
          </button>
        </p>
      )}
    </div>
  );
}
