import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { ApiError } from '../../api/errors';
import { chatMutations, chatQueries, getConversation, saveTurn, type ActiveStream, type ConversationSettings } from '../../api/queries/chat';
import { resumeStream, startStream, stopStream } from '../../api/queries/inference';
import { invalidateBalance } from '../../api/queries/wallet';
import { tokenStore } from '../../api/tokens';
import { cachedConversation, chatCache } from './cache';
import { DEFAULT_SETTINGS, conversationIdOf, forget, greetingMessage, localId, remember, savedMessage, shownConversation } from './conversation';
import { followStream, StreamEventError } from './sse';
import { TEXT, chatTitle } from './texts';
import type { UiMessage, UiModel } from './types';

/** A `streamId` the spec accepts (`^[A-Za-z0-9_-]+$`), unique per send. */
const newStreamId = () => `msg_${Date.now()}_${Math.random().toString(36).slice(2, 9)}`;

/**
 * What only this tab knows of the open conversation: the turn on its way (the user's message, the reply as it
 * streams) and the notices of failed sends, shown after the saved messages up to `cut` (a turn that replaces one
 * hides the saved turns from there). `from` is the URL's id when the turn began: null for a new conversation, until
 * its first message created it and the URL names it.
 */
interface Live {
  conversationId: string | null;
  from: string | null;
  cut: number | null;
  messages: UiMessage[];
}
const NOTHING_LIVE: Live = { conversationId: null, from: null, cut: null, messages: [] };
const settled = (id: string): Live => ({ ...NOTHING_LIVE, conversationId: id, from: id });

type Update = (live: Live) => Live;
const add =
  (message: UiMessage): Update =>
  (live) => ({ ...live, messages: [...live.messages, message] });
const patch =
  (id: string, change: (m: UiMessage) => Partial<UiMessage>): Update =>
  (live) => ({ ...live, messages: live.messages.map((m) => (m.id === id ? { ...m, ...change(m) } : m)) });
const remove =
  (ids: string[]): Update =>
  (live) => ({ ...live, messages: live.messages.filter((m) => !ids.includes(m.id)) });

/** What a failed send says: 402 or the stream's INSUFFICIENT_TOKENS, 401, or anything else. */
export function failureKind(err: unknown): 'insufficient' | 'auth' | 'failure' {
  if ((err instanceof ApiError && err.status === 402) || (err instanceof StreamEventError && err.code === 'INSUFFICIENT_TOKENS'))
    return 'insufficient';
  return err instanceof ApiError && err.status === 401 ? 'auth' : 'failure';
}
const NOTICE_TEXT = { insufficient: TEXT.insufficientTitle, auth: TEXT.authRequired, failure: TEXT.failure } as const;

/** One reply's stream. `followed`: a reply this tab did not start (reopened while generated), so leaving lets it finish. */
interface Run {
  controller: AbortController;
  streamId: string;
  started: boolean;
  stopped: boolean;
  followed: boolean;
  giveUp?: ReturnType<typeof setTimeout>;
}

export interface ChatOptions {
  userId: string | null;
  /** The conversation the URL names; null for a new one. */
  conversationId: string | null;
  /** Called when a conversation is opened, with its model (the page selects it). */
  onModel?: (modelId: string) => void;
}

/**
 * The assistant's conversation: the saved one is the `chat` query of the URL's id; this hook adds the live turn
 * (stream/start with `conversation_id`: the server saves the user's message and the reply, so the client saves
 * neither), stop, retry, regenerate and edit, and writes each finished turn into the query.
 */
export function useChat({ userId, conversationId, onModel }: ChatOptions) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { mutateAsync: createConversation } = useMutation(chatMutations.create());
  const { mutateAsync: updateConversation } = useMutation(chatMutations.update());
  const saved = useQuery({ ...chatQueries.conversation(conversationId ?? ''), enabled: conversationId !== null });
  const gone = saved.error instanceof ApiError && saved.error.status === 404;
  const cached = useQuery({ ...cachedConversation(userId, conversationId), enabled: saved.isError && !gone });
  // The saved conversation as the screen shows it: the server's, else (the server failing) this browser's copy.
  const server = useMemo(
    () => (saved.data ? shownConversation(saved.data) : cached.data ? { ...cached.data, settings: cached.data.settings ?? DEFAULT_SETTINGS } : null),
    [saved.data, cached.data],
  );

  const [live, setLive] = useReducer((state: Live, update: Update) => update(state), NOTHING_LIVE);
  /** The live state as of the last update (ahead of rendering), for the async code. */
  const current = useRef(live);
  const update = useCallback((change: Update) => {
    current.current = change(current.current);
    setLive(change);
  }, []);
  /** The reply being generated, if any: the only live message that streams. */
  const generating = () => current.current.messages.find((m) => m.status === 'streaming')?.id ?? null;
  /** A new conversation greets; a cleared one is empty; one started from the greeting keeps it on top. */
  const [fresh, setFresh] = useState<'greeting' | 'empty'>('greeting');
  const [greeting] = useState(greetingMessage);
  const [greeted, setGreeted] = useState<string | null>(null);
  const [draftSettings, setDraftSettings] = useState(DEFAULT_SETTINGS);
  const [error, setErrorState] = useState<string | null>(null);
  const [dismissedAt, setDismissedAt] = useState(0);
  const runs = useRef(new Map<string, Run>());
  const followedStreams = useRef(new Set<string>());
  const url = useRef(conversationId);
  const settings = useRef(server?.settings ?? draftSettings);
  useLayoutEffect(() => {
    url.current = conversationId;
    settings.current = server?.settings ?? draftSettings;
  });

  /** An error to show, or null to dismiss it (a failed load included). */
  const setError = useCallback((message: string | null) => {
    setErrorState(message);
    if (!message) setDismissedAt(Date.now());
  }, []);

  /**
   * Streams reply `replyId` (already on screen) from `open` until the server's done; a dropped connection resumes
   * from the last event. Returns whether the screen still shows it, with the server's usage when it ended well.
   */
  const streamReply = useCallback(
    async (replyId: string, run: Run, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>) => {
      runs.current.set(replyId, run);
      try {
        const result = await followStream({
          open,
          resume: (lastEventId, signal) => resumeStream(run.streamId, lastEventId, signal),
          onToken: (text) => update(patch(replyId, (m) => ({ content: m.content + text }))),
          signal: run.controller.signal,
        });
        return result.type === 'done' ? result : null;
      } finally {
        clearTimeout(run.giveUp);
        runs.current.delete(replyId);
        if (tokenStore.get() && !(run.controller.signal.aborted && !run.stopped)) {
          // Balance and history changed (the hold settled), and so did the conversation's place in the list.
          void invalidateBalance(queryClient);
          void queryClient.invalidateQueries({ queryKey: chatQueries.lists() });
        }
      }
    },
    [queryClient, update],
  );

  /**
   * Stop generation: the reply is marked stopped and the worker told to stop. The tokens already on their way still
   * arrive until the server's `done`, so the reply on screen ends where the saved (and charged) one does.
   */
  const stop = useCallback(() => {
    const replyId = generating();
    const run = replyId ? runs.current.get(replyId) : undefined;
    if (replyId) update(patch(replyId, () => ({ status: 'sent', stopped: true })));
    if (!run) return;
    run.stopped = true;
    if (run.started) void stopStream(run.streamId).catch(() => undefined);
    // The server ends the stream with `done` within a second; stop listening anyway if it never does.
    run.giveUp = setTimeout(() => run.controller.abort(), 10_000);
  }, [update]);

  /** Leaving the conversation on screen: a reply this tab started is stopped; one it only follows is left to finish. */
  const leave = useCallback(() => {
    const replyId = generating();
    const run = replyId ? runs.current.get(replyId) : undefined;
    if (run?.followed) run.controller.abort();
    else stop();
    setErrorState(null);
    update(() => NOTHING_LIVE);
  }, [stop, update]);

  /** Sends `user` (already on screen) and streams the reply; `replaceFrom` is the saved user message this turn replaces. */
  const exchange = useCallback(
    async (user: UiMessage, model: UiModel, replaceFrom?: string) => {
      const replyId = localId('reply');
      const now = new Date().toISOString();
      setErrorState(null);
      update(add({ id: replyId, role: 'assistant', content: '', timestamp: now, status: 'streaming', model: model.id }));
      const mine = () => current.current.messages.some((m) => m.id === replyId);

      let id = current.current.conversationId;
      if (!id) {
        try {
          // Settings the user changed before the first message go with it; the defaults are the server's anyway.
          const changed = (Object.keys(DEFAULT_SETTINGS) as Array<keyof ConversationSettings>).some(
            (k) => settings.current[k] !== DEFAULT_SETTINGS[k],
          );
          const created = await createConversation({ title: chatTitle(), modelId: model.id, ...(changed ? { settings: settings.current } : {}) });
          if (!mine()) return;
          id = conversationIdOf(created);
          queryClient.setQueryData(chatQueries.conversation(id).queryKey, created);
          update((l) => ({ ...l, conversationId: id, cut: created.messages.length }));
          if (fresh === 'greeting') setGreeted(id);
          remember(id);
          void navigate({ to: '/app/assistant/$conversationId', params: { conversationId: id }, replace: true });
        } catch (err) {
          if (!mine()) return;
          update(remove([replyId]));
          update(patch(user.id, () => ({ status: 'error' })));
          setErrorState(failureKind(err) === 'auth' ? TEXT.authRequired : TEXT.errors.create);
          return;
        }
      }

      const run: Run = { controller: new AbortController(), streamId: newStreamId(), started: false, stopped: false, followed: false };
      // The conversation's saved settings are the server's to apply: a turn sends none of its own.
      const request = { streamId: run.streamId, modelId: model.id, prompt: user.content, conversation_id: id };
      try {
        const done = await streamReply(replyId, run, async (signal) => {
          const body = await startStream({ ...request, ...(replaceFrom ? { replace_from: replaceFrom } : {}) }, signal);
          run.started = true;
          update(patch(user.id, () => ({ status: 'sent' })));
          // Stopped while the request was on its way: the job exists now, so stop it.
          if (run.stopped) void stopStream(run.streamId).catch(() => undefined);
          return body;
        });
        if (!mine() || !done) return;
        // Saved by the server: the turn moves from the live state into the conversation's query.
        const { prompt_tokens, completion_tokens } = done.usage;
        const turn = current.current.messages.flatMap((m) =>
          m.id === user.id
            ? [{ ...m, tokens: prompt_tokens }]
            : m.id === replyId
              ? [{ ...m, tokens: completion_tokens, stopped: done.stop_reason === 'abort' }]
              : [],
        );
        saveTurn(queryClient, id, current.current.cut ?? 0, turn.map(savedMessage));
        update(() => settled(id));
      } catch (err) {
        if (!mine() || run.controller.signal.aborted || (run.stopped && run.started)) return; // after Stop the reply is final
        const kind = failureKind(err);
        const hasText = current.current.messages.some((m) => m.id === replyId && m.content);
        update(hasText ? patch(replyId, () => ({ status: 'error' })) : remove([replyId]));
        update(patch(user.id, () => ({ status: 'error' })));
        update(add({ id: localId('notice'), role: 'assistant', content: NOTICE_TEXT[kind], timestamp: now, status: 'sent', kind, replyTo: user.id }));
      }
    },
    [createConversation, fresh, navigate, queryClient, streamReply, update],
  );

  /** Starts a turn: its messages go after the saved ones up to `cut` (all of them unless a turn is replaced). */
  const begin = useCallback(
    (content: string, cut?: number) => {
      const user: UiMessage = { id: localId('user'), role: 'user', content, timestamp: new Date().toISOString(), status: 'sending' };
      const id = url.current;
      const before = current.current;
      const going = before.conversationId === id && cut === undefined;
      const length = queryClient.getQueryData(chatQueries.conversation(id ?? '').queryKey)?.messages.length ?? 0;
      update(() => ({
        conversationId: id,
        from: id,
        cut: cut ?? (going ? before.cut : null) ?? length,
        messages: [...(going ? before.messages : []), user],
      }));
      return user;
    },
    [queryClient, update],
  );

  /** Sends a message (never blank, never while a reply streams, never without a model). */
  const send = useCallback(
    (content: string, model: UiModel | null) => {
      if (!content.trim() || generating() || !model) return false;
      void exchange(begin(content), model);
      return true;
    },
    [begin, exchange],
  );

  /** Retry of a failed user message: its notices go, and it is sent again. */
  const retry = useCallback(
    (messageId: string, model: UiModel | null) => {
      const user = current.current.messages.find((m) => m.id === messageId && m.role === 'user');
      if (generating() || !model || !user) return;
      update(remove(current.current.messages.filter((m) => m.replyTo === messageId).map((m) => m.id)));
      update(patch(messageId, () => ({ status: 'sending' })));
      void exchange({ ...user, status: 'sending' }, model);
    },
    [exchange, update],
  );

  /**
   * Sends `content` in place of a saved user message, discarding it and everything after it (the server does the
   * same: stream/start's replace_from). A turn finished in this tab holds local ids: the server's id of the message
   * is found by its place among the user messages the server holds.
   */
  const edit = useCallback(
    async (messageId: string, content: string, model: UiModel | null) => {
      const id = url.current;
      const messages = id ? queryClient.getQueryData(chatQueries.conversation(id).queryKey)?.messages : undefined;
      const at = messages?.findIndex((m) => m.id === messageId && m.role === 'user') ?? -1;
      if (generating() || !model || !id || !messages || at < 0 || !content.trim()) return;
      const place = messages.slice(0, at).filter((m) => m.role === 'user').length;
      const serverId = await getConversation(id).then(
        (c) => c.messages.filter((m) => m.role === 'user')[place]?.id,
        () => void setErrorState(TEXT.errors.load),
      );
      if (serverId && url.current === id && !generating()) void exchange(begin(content, at), model, serverId);
    },
    [begin, exchange, queryClient],
  );

  /** Generates the last reply again (its user message sent anew); the old reply goes, its charge stays in the wallet. */
  const regenerate = useCallback(
    (model: UiModel | null) => {
      const messages = (conversationId && queryClient.getQueryData(chatQueries.conversation(conversationId).queryKey)?.messages) || [];
      const user = messages
        .slice(
          0,
          messages.findLastIndex((m) => m.role === 'assistant'),
        )
        .findLast((m) => m.role === 'user');
      if (user) void edit(user.id, user.content, model);
    },
    [conversationId, edit, queryClient],
  );

  /**
   * The open conversation's system prompt and parameters: saved on the server when it has one (else kept for its
   * creation with the first message). Resolves false when the server refused them.
   */
  const saveSettings = useCallback(
    async (next: ConversationSettings): Promise<boolean> => {
      if (conversationId)
        return updateConversation({ id: conversationId, settings: next }).then(
          () => true,
          () => false,
        );
      setDraftSettings(next);
      return true;
    },
    [conversationId, updateConversation],
  );

  /** A new conversation (one greeting) or, cleared, an empty screen; the remembered id is cleared either way. */
  const startOver = useCallback(
    (screen: 'greeting' | 'empty') => {
      leave();
      forget();
      setFresh(screen);
      setDraftSettings(DEFAULT_SETTINGS);
      return navigate({ to: '/app/assistant' });
    },
    [leave, navigate],
  );
  const newConversation = useCallback(() => startOver('greeting'), [startOver]);
  const clear = useCallback(() => startOver('empty'), [startOver]);
  const open = useCallback((id: string) => void navigate({ to: '/app/assistant/$conversationId', params: { conversationId: id } }), [navigate]);

  /** The sidebar deleted a conversation: if it is the open one, start afresh; then its query goes (not before: the screen would ask for it again). */
  const deleted = useCallback(
    async (id: string) => {
      if (userId) void chatCache.deleteConversation(userId, id);
      if (url.current === id) await newConversation();
      queryClient.removeQueries({ queryKey: chatQueries.conversation(id).queryKey });
    },
    [newConversation, queryClient, userId],
  );

  /**
   * A reply generated for the open conversation that this tab did not start (the page was reloaded, or another
   * tab sent it): shown as a streaming bubble, read from its first event (GET stream/{id}), stoppable; when it
   * ends, the conversation is loaded again so the saved reply takes the bubble's place.
   */
  const follow = useCallback(
    async (active: ActiveStream, id: string, cut: number) => {
      const replyId = localId('reply');
      const run: Run = { controller: new AbortController(), streamId: active.stream_id, started: true, stopped: false, followed: true };
      followedStreams.current.add(active.stream_id);
      const reply: UiMessage = {
        id: replyId,
        role: 'assistant',
        content: '',
        timestamp: active.started_at,
        status: 'streaming',
        model: active.model_id,
      };
      update(() => ({ conversationId: id, from: id, cut, messages: [reply] }));
      const mine = () => current.current.messages.some((m) => m.id === replyId);
      // An error event, or the stream already gone (404): either way the server saved the reply (or its error).
      await streamReply(replyId, run, (signal) => resumeStream(run.streamId, 0, signal)).catch(() => null);
      if (!mine()) return;
      update(patch(replyId, () => ({ status: 'sent' })));
      await queryClient.refetchQueries({ queryKey: chatQueries.conversation(id).queryKey, exact: true });
      if (mine()) update(() => settled(id));
    },
    [queryClient, streamReply, update],
  );

  // Another conversation in the URL: the live turn of this one is left (the new conversation's own URL keeps it).
  useEffect(() => {
    const { conversationId: liveId, from } = current.current;
    if (conversationId !== liveId && conversationId !== from) leave();
  }, [conversationId, leave]);

  // A conversation loaded: remembered, copied for when the server fails, and a reply being generated for it that
  // this tab is not following shown live.
  useEffect(() => {
    const data = saved.data;
    if (!data || !conversationId) return;
    remember(conversationId);
    if (userId)
      void chatCache.putConversation(userId, {
        conversation_id: conversationId,
        updated_at: data.updated_at,
        title: data.title,
        ...shownConversation(data),
      });
    const active = data.active_stream;
    if (active && !followedStreams.current.has(active.stream_id) && ![...runs.current.values()].some((r) => r.streamId === active.stream_id)) {
      void follow(active, conversationId, data.messages.length);
    }
  }, [saved.data, conversationId, userId, follow]);
  useEffect(() => {
    if (!gone) return;
    forget();
    if (userId && conversationId) void chatCache.deleteConversation(userId, conversationId);
  }, [gone, userId, conversationId]);
  // Its model is selected once per conversation opened.
  const modelFor = useRef<string | null>(null);
  useEffect(() => {
    if (!server || modelFor.current === conversationId) return;
    modelFor.current = conversationId;
    if (server.model_id) onModel?.(server.model_id);
  }, [server, conversationId, onModel]);

  // The access token removed (here or in another tab): every stream is dropped with every local copy of the chat.
  useEffect(
    () =>
      tokenStore.subscribe((tokens) => {
        if (tokens?.access_token) return;
        for (const run of runs.current.values()) run.controller.abort();
        update(() => NOTHING_LIVE);
        forget();
        void chatCache.clear();
        queryClient.removeQueries({ queryKey: chatQueries.all });
      }),
    [queryClient, update],
  );
  // Leaving the page stops listening (the server still finishes and saves the reply).
  useEffect(() => () => runs.current.forEach((run) => run.controller.abort()), []);

  const shown = live.conversationId === conversationId || live.from === conversationId ? live : NOTHING_LIVE;
  const messages = useMemo(() => {
    const top = (conversationId === null ? fresh === 'greeting' : greeted === conversationId) ? [greeting] : [];
    return [...top, ...(server?.messages ?? []).slice(0, shown.cut ?? undefined), ...shown.messages];
  }, [conversationId, fresh, greeted, greeting, server, shown]);

  return {
    conversation: { id: conversationId, messages, settings: server?.settings ?? draftSettings },
    tokensUsed: messages.reduce((n, m) => n + (m.tokens ?? 0), 0),
    generating: shown.messages.some((m) => m.status === 'streaming'),
    error: error ?? (saved.isError && saved.errorUpdatedAt > dismissedAt ? TEXT.errors.load : null),
    setError,
    loading: conversationId !== null && saved.isPending,
    send,
    stop,
    retry,
    regenerate,
    edit: (messageId: string, content: string, model: UiModel | null) => void edit(messageId, content, model),
    saveSettings,
    newConversation,
    clear,
    open,
    deleted,
  };
}
