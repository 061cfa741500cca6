import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { inferenceQueries } from '../../api/queries/inference';
import { LOCALE } from '../../components/format';
import { useSession, userId as idOf } from '../session/session';
import { ChatInput, type ChatInputHandle } from './ChatInput';
import { ConversationSidebar } from './ConversationSidebar';
import { MessageBubble } from './MessageBubble';
import { DEFAULT_MODELS, defaultModelId, isAvailable, modelLabel, toUiModel } from './models';
import { TEXT, usageLine, usingLine } from './texts';
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
  // When the list cannot be loaded, the four default models (signed out, it is not even asked for).
  const modelsFailed = modelsQuery.isError;
  const useDefaults = modelsFailed || !session.signedIn;
  const models = useMemo(() => (useDefaults ? DEFAULT_MODELS : (modelsQuery.data ?? []).map(toUiModel)), [modelsQuery.data, useDefaults]);
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

  const chat = useChat({ userId: uid, onModel });
  const [collapsed, setCollapsed] = useState(startsCollapsed);
  const input = useRef<ChatInputHandle>(null);
  const log = useRef<HTMLDivElement>(null);

  // Follow the conversation as it grows (new messages and streamed tokens).
  const lastMessage = chat.conversation.messages.at(-1);
  useLayoutEffect(() => {
    const el = log.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [chat.conversation.messages.length, lastMessage?.content]);

  if (chat.booting || (session.signedIn && modelsQuery.isPending)) {
    return (
      <div className="assistant-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />
        <p>{TEXT.loading}</p>
      </div>
    );
  }

  const messages = chat.conversation.messages;
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
                ? `${selected.description} · ${selected.parameters ? `${selected.parameters} parameters · ` : ''}${selected.context_length.toLocaleString(LOCALE)} tokens context · ${selected.status}`
                : 'No model is available right now.'}
            </p>
          </div>
          <button type="button" className="btn btn-sm assistant-clear" onClick={chat.clear} disabled={messages.length === 0 && !chat.conversation.id}>
            Clear conversation
          </button>
        </div>
      </header>

      <div className="assistant-body">
        <ConversationSidebar
          activeId={chat.conversation.id}
          collapsed={collapsed}
          onToggle={() => setCollapsed((c) => !c)}
          onSelect={(id) => void chat.open(id)}
          onNew={chat.newConversation}
          onStartFirst={startFirst}
          onRenamed={chat.renamed}
          onDeleted={chat.deleted}
          onError={chat.setError}
        />

        <section className="assistant-chat" aria-label="Chat">
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
          </footer>
        </section>
      </div>
    </div>
  );
}
