import { useCallback, useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { inferenceQueries, isChatModel } from '../../api/queries/inference';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { LOCALE } from '../../components/format';
import { useSession, userId as idOf } from '../session/session';
import { ChatInput, type ChatInputHandle } from './ChatInput';
import { ConversationSidebar } from './ConversationSidebar';
import { MessageBubble } from './MessageBubble';
import { busyness, DEFAULT_MODELS, defaultModelId, isAvailable, modelLabel, toUiModel } from './models';
import { REPLY_TEXT, SETTINGS_TEXT } from './reply-texts';
import { SettingsPanel } from './SettingsPanel';
import { TEXT, usageLine, usingLine } from './texts';
import { DEFAULT_SETTINGS } from './conversation';
import { useChat } from './useChat';
import './assistant.css';

/** Below this width the sidebar starts collapsed (it then shows the recent conversations in one row). */
const NARROW = '(max-width: 860px)';
const startsCollapsed = () => typeof window !== 'undefined' && Boolean(window.matchMedia?.(NARROW).matches);

/** Models, real token streaming, conversations on the server, a local cache. */
export function AssistantPage() {
  const session = useSession();
  const uid = idOf(session.user);

  const modelsQuery = useQuery({ ...inferenceQueries.models(), enabled: session.signedIn });
  // When the list cannot be loaded, the four default models (signed out, it is not even asked for). Only chat models
  // are offered: the default choice, a conversation's own model and the dropdown all come from this list.
  const modelsFailed = modelsQuery.isError;
  const useDefaults = modelsFailed || !session.signedIn;
  const models = useMemo(
    () => (useDefaults ? DEFAULT_MODELS : (modelsQuery.data ?? []).filter(isChatModel).map(toUiModel)),
    [modelsQuery.data, useDefaults],
  );
  const [picked, setPicked] = useState<string | null>(null);
  const wanted = useRef<string | null>(null);
  const selected = models.find((m) => m.id === picked && isAvailable(m)) ?? null;

  // The default model once the list is known; a conversation's own model when it asked for one first.
  useEffect(() => {
    if (!models.length) return;
    const want = wanted.current && models.find((m) => m.id === wanted.current && isAvailable(m));
    if (want) {
      wanted.current = null;
      setPicked(want.id);
    } else if (!picked || !models.some((m) => m.id === picked && isAvailable(m))) {
      setPicked(defaultModelId(models));
    }
  }, [models, picked]);

  const onModel = useCallback(
    (modelId: string) => {
      if (models.some((m) => m.id === modelId && isAvailable(m))) setPicked(modelId);
      else if (!models.length) wanted.current = modelId;
    },
    [models],
  );

  // The conversation is in the URL (/app/assistant/<id>): back and forward move between conversations.
  const chat = useChat({ userId: uid, onModel, conversationId: useParams({ strict: false }).conversationId ?? null });
  const [collapsed, setCollapsed] = useState(startsCollapsed);
  const input = useRef<ChatInputHandle>(null);
  const log = useRef<HTMLDivElement>(null);

  const [pendingEdit, setPendingEdit] = useState<{ id: string; text: string } | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);

  // Keyboard: Esc stops a reply, Ctrl+Shift+O (⌘⇧O) starts a new conversation, Shift+Esc focuses the message box.
  const onShortcut = useEffectEvent((e: KeyboardEvent) => {
    if (e.key === 'Escape' && e.shiftKey) {
      e.preventDefault();
      input.current?.focus();
    } else if (e.key === 'Escape' && chat.generating) {
      e.preventDefault();
      chat.stop();
    } else if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'o') {
      e.preventDefault();
      if (!chat.generating) {
        chat.newConversation();
        input.current?.focus();
      }
    }
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onShortcut(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  // Follow the conversation as it grows (new messages and streamed tokens).
  const lastMessage = chat.conversation.messages.at(-1);
  useLayoutEffect(() => {
    const el = log.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [chat.conversation.messages.length, lastMessage?.content]);

  if (session.signedIn && modelsQuery.isPending) {
    return (
      <div className="assistant-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        <p>{TEXT.loading}</p>
      </div>
    );
  }

  const messages = chat.conversation.messages;
  const lastReply = chat.generating ? undefined : messages.findLast((m) => m.role === 'assistant' && !m.kind);
  const canAct = !chat.generating && Boolean(selected) && Boolean(chat.conversation.id);
  // Editing a message discards the turns after it: asked first when there are any.
  const editMessage = (id: string, text: string) => {
    const at = messages.findIndex((m) => m.id === id);
    if (messages.slice(at + 1).some((m) => m.role === 'user')) setPendingEdit({ id, text });
    else chat.edit(id, text, selected);
  };
  const startFirst = () => {
    chat.newConversation();
    input.current?.focus();
  };

  return (
    <div className={`assistant${collapsed ? ' is-collapsed' : ''}`}>
      <header className="assistant-header">
        <div className="assistant-heading">
          <h1>{TEXT.title}</h1>
          <span className="badge badge-accent">{TEXT.realAi}</span>
        </div>
        <p className="assistant-usage" aria-live="polite">
          {session.signedIn ? usageLine(chat.tokensUsed, selected?.price_per_token ?? 0) : TEXT.loginRequired}
        </p>
        <div className="assistant-controls">
          <div className="assistant-model">
            <label htmlFor="assistant-model">Model</label>
            <select
              id="assistant-model"
              value={selected?.id ?? ''}
              onChange={(e) => setPicked(e.target.value || null)}
              disabled={chat.generating}
              aria-describedby="assistant-model-details"
            >
              {!selected && (
                <option value="" disabled>
                  Select a model
                </option>
              )}
              {models.map((m) => (
                <option key={m.id} value={m.id} disabled={!isAvailable(m)}>
                  {modelLabel(m)}
                </option>
              ))}
            </select>
            <p id="assistant-model-details" className="assistant-model-details">
              {selected
                ? `${selected.description} · ${selected.parameters ? `${selected.parameters} parameters · ` : ''}${selected.context_length.toLocaleString(LOCALE)} tokens context · ${[selected.status, busyness(selected)].filter(Boolean).join(' · ')}`
                : 'No model is available right now.'}
            </p>
          </div>
          <button type="button" className="btn btn-sm assistant-clear" onClick={chat.clear} disabled={messages.length === 0 && !chat.conversation.id}>
            Clear conversation
          </button>
          <button
            type="button"
            className="btn btn-sm assistant-clear"
            aria-expanded={settingsOpen}
            onClick={() => setSettingsOpen((o) => !o)}
            disabled={chat.generating}
          >
            {SETTINGS_TEXT.open}
          </button>
        </div>
      </header>

      <div className="assistant-body">
        <ConversationSidebar
          activeId={chat.conversation.id}
          collapsed={collapsed}
          onToggle={() => setCollapsed((c) => !c)}
          onSelect={chat.open}
          onNew={chat.newConversation}
          onStartFirst={startFirst}
          onDeleted={chat.deleted}
          onError={chat.setError}
        />

        <section className="assistant-chat" aria-label="Chat">
          {settingsOpen && (
            <SettingsPanel
              key={chat.conversation.id ?? 'new'}
              settings={chat.conversation.settings}
              defaults={DEFAULT_SETTINGS}
              onSave={chat.saveSettings}
              onClose={() => setSettingsOpen(false)}
            />
          )}
          {modelsFailed && (
            <p className="alert alert-warn assistant-banner" role="status">
              {TEXT.modelsFailed}
            </p>
          )}
          {chat.error && (
            <div className="alert alert-error assistant-banner" role="alert">
              <span>{chat.error}</span>
              <button type="button" className="assistant-dismiss" aria-label="Dismiss error" onClick={() => chat.setError(null)}>
                ×
              </button>
            </div>
          )}

          <div className="assistant-log" ref={log} role="log" aria-label="Messages" aria-busy={chat.loading || undefined} tabIndex={0}>
            {chat.loading ? (
              <p className="assistant-log-state" role="status">
                <span className="spinner small" aria-hidden="true" /> Loading conversation...
              </p>
            ) : messages.length === 0 ? (
              <div className="assistant-empty">
                <h2>{TEXT.emptyTitle}</h2>
                <p>{TEXT.emptyBody}</p>
              </div>
            ) : (
              messages.map((m) => (
                <MessageBubble
                  key={m.id}
                  message={m}
                  canRetry={!chat.generating && Boolean(selected)}
                  onRetry={(id) => chat.retry(id, selected)}
                  onRegenerate={canAct && m.id === lastReply?.id ? () => chat.regenerate(selected) : undefined}
                  onEdit={canAct && m.role === 'user' ? (text) => editMessage(m.id, text) : undefined}
                  modelName={(id) => models.find((x) => x.id === id)?.name ?? id}
                />
              ))
            )}
          </div>

          <ChatInput
            ref={input}
            hasModel={Boolean(selected)}
            generating={chat.generating}
            onSend={(text) => chat.send(text, selected)}
            onStop={chat.stop}
          />
          <footer className="assistant-footer">
            <span>{TEXT.footerTokens}</span>
            {selected && <span>{usingLine(selected.name)}</span>}
            <span className="assistant-shortcuts">
              <button
                type="button"
                className="assistant-link"
                aria-expanded={helpOpen}
                aria-controls="assistant-shortcuts"
                onClick={() => setHelpOpen((o) => !o)}
              >
                {REPLY_TEXT.shortcuts}
              </button>
              {helpOpen && (
                <dl id="assistant-shortcuts" className="assistant-shortcuts-list">
                  {REPLY_TEXT.shortcutList.map(([keys, what]) => (
                    <div key={keys}>
                      <dt>
                        <kbd>{keys}</kbd>
                      </dt>
                      <dd>{what}</dd>
                    </div>
                  ))}
                </dl>
              )}
            </span>
          </footer>
          {pendingEdit && (
            <ConfirmDialog
              title={REPLY_TEXT.discardTitle}
              name={`“${pendingEdit.text.slice(0, 60)}${pendingEdit.text.length > 60 ? '…' : ''}”`}
              text={REPLY_TEXT.discardText}
              confirmLabel={REPLY_TEXT.saveAndSend}
              busyLabel={REPLY_TEXT.saveAndSend}
              cancelLabel={REPLY_TEXT.cancel}
              busy={false}
              error={null}
              onConfirm={() => {
                chat.edit(pendingEdit.id, pendingEdit.text, selected);
                setPendingEdit(null);
              }}
              onClose={() => setPendingEdit(null)}
            />
          )}
        </section>
      </div>
    </div>
  );
}
