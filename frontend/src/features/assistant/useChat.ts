import { useCallback, useEffect, useEffectEvent, useLayoutEffect, useReducer, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { chatMutations, chatQueries, getConversation, type ActiveStream, type Conversation, type ConversationSettings } from '../../api/queries/chat';
import { GENERATION_PARAMS, resumeStream, startStream, stopStream } from '../../api/queries/inference';
import { tokenStore } from '../../api/tokens';
import { invalidateBalance } from '../../api/queries/wallet';
import { chatCache } from './cache';
import { followStream, type FollowResult, StreamEventError } from './sse';
import { LAST_CONVERSATION_KEY, TEXT, chatTitle } from './texts';
import type { OpenConversation, UiMessage, UiModel } from './types';

let counter = 0;
const localId = (prefix: string) => `${prefix}_${Date.now()}_${(counter += 1)}`;
/** A `streamId` the spec accepts (`^[A-Za-z0-9_-]+$`), unique per send. */
const newStreamId = () => `msg_${Date.now()}_${Math.random().toString(36).slice(2, 9)}`;

export const greetingMessage = (): UiMessage => ({
  id: localId('greeting'),
  role: 'assistant',
  content: TEXT.greeting,
  timestamp: new Date().toISOString(),
  status: 'sent',
  kind: 'greeting',
});

/** A new conversation is one greeting message and no id yet. */
/** A new conversation's settings: no system prompt, the spec's sampling defaults. */
export const DEFAULT_SETTINGS: ConversationSettings = { system_prompt: '', ...GENERATION_PARAMS };

export const freshConversation = (): OpenConversation => ({
  id: null,
  title: TEXT.defaultTitle,
  model_id: null,
  messages: [greetingMessage()],
  settings: DEFAULT_SETTINGS,
});

export function fromServer(c: Conversation): OpenConversation {
  return {
    id: c.conversation_id ?? c.id,
    title: c.title,
    model_id: c.model_id,
    settings: c.settings ?? DEFAULT_SETTINGS,
    messages: c.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      timestamp: m.timestamp,
      status: m.status,
      model: m.model,
      tokens: m.tokens,
      ...(m.stopped ? { stopped: true } : {}),
    })),
  };
}

// ---- the remembered conversation (local storage) ----
function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
export const rememberedConversation = () => storage()?.getItem(LAST_CONVERSATION_KEY) ?? null;
const remember = (id: string) => storage()?.setItem(LAST_CONVERSATION_KEY, id);
const forget = () => storage()?.removeItem(LAST_CONVERSATION_KEY);

// ---- state ----
type Action =
  | { type: 'reset'; conversation: OpenConversation }
  | { type: 'identify'; id: string; title: string; model_id: string }
  | { type: 'add'; message: UiMessage }
  | { type: 'patch'; id: string; patch: Partial<UiMessage> }
  | { type: 'append'; id: string; text: string }
  | { type: 'remove'; ids: string[] }
  | { type: 'rename'; title: string }
  | { type: 'settings'; settings: ConversationSettings };

function reducer(state: OpenConversation, action: Action): OpenConversation {
  switch (action.type) {
    case 'reset':
      return action.conversation;
    case 'identify':
      return { ...state, id: action.id, title: action.title, model_id: action.model_id };
    case 'rename':
      return { ...state, title: action.title };
    case 'settings':
      return { ...state, settings: action.settings };
    case 'add':
      return { ...state, messages: [...state.messages, action.message] };
    case 'patch':
      return { ...state, messages: state.messages.map((m) => (m.id === action.id ? { ...m, ...action.patch } : m)) };
    case 'append':
      return { ...state, messages: state.messages.map((m) => (m.id === action.id ? { ...m, content: m.content + action.text } : m)) };
    case 'remove':
      return { ...state, messages: state.messages.filter((m) => !action.ids.includes(m.id)) };
  }
}

/** 402, or a message about insufficient tokens / payment required, is INSUFFICIENT_TOKENS. */
export function failureKind(err: unknown): 'insufficient' | 'auth' | 'failure' {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError && err.status === 402) return 'insufficient';
  if (err instanceof StreamEventError && err.code === 'INSUFFICIENT_TOKENS') return 'insufficient';
  if (/insufficient token|payment required/i.test(message)) return 'insufficient';
  if (err instanceof ApiError && err.status === 401) return 'auth';
  return 'failure';
}

const NOTICE_TEXT = { insufficient: TEXT.insufficientTitle, auth: TEXT.authRequired, failure: TEXT.failure } as const;

/** A turn's sampling parameters: the conversation's. */
const paramsOf = ({ temperature, max_tokens, top_p }: ConversationSettings) => ({ temperature, max_tokens, top_p });

/** A finished reply: sent, and marked stopped when its requester stopped it (the server saves it so too). */
const ended = (done: Extract<FollowResult, { type: 'done' }>) => ({ status: 'sent' as const, stopped: done.stop_reason === 'abort' });

interface Run {
  controller: AbortController;
  streamId: string;
  started: boolean;
  stopped: boolean;
  /** A reply this tab did not start (the conversation was reopened while it was generated): only followed. */
  followed?: boolean;
  giveUp?: ReturnType<typeof setTimeout>;
}

export interface ChatOptions {
  userId: string | null;
  /** Called when a conversation is opened, with its model (the page selects it). */
  onModel?: (modelId: string) => void;
  /** The conversation the URL names: opened first, instead of the remembered one. */
  initialId?: string;
}

/**
 * The assistant's conversation: sending with real token streaming (stream/start with `conversation_id`: the
 * server saves the user's message and the reply, so the client saves neither), stop, retry, opening and
 * clearing conversations, the local cache, and the reset when the session ends.
 */
export function useChat({ userId, onModel, initialId }: ChatOptions) {
  const queryClient = useQueryClient();
  // mutateAsync keeps one identity, so `exchange` below does not change on every render.
  const { mutateAsync: createConversation } = useMutation(chatMutations.create());
  const [initial] = useState(freshConversation);
  const [conversation, dispatchState] = useReducer(reducer, initial);
  /** The conversation as of the last action (ahead of rendering), for the async code. */
  const current = useRef(initial);
  /** Every change goes through here, so `current` is always up to date. */
  const dispatch = useCallback((action: Action) => {
    current.current = reducer(current.current, action);
    dispatchState(action);
  }, []);
  const [generatingId, setGeneratingState] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [booting, setBooting] = useState(true);

  const runs = useRef(new Map<string, Run>());
  /** The reply being generated, known at once (state only after the next render). */
  const generating = useRef<string | null>(null);
  const setGeneratingId = useCallback((id: string | null) => {
    generating.current = id;
    setGeneratingState(id);
  }, []);
  const onModelRef = useRef(onModel);
  // Kept current after each render (not during it), so `open` keeps one identity across renders.
  useLayoutEffect(() => {
    onModelRef.current = onModel;
  }, [onModel]);
  /** Bumped on every reset, so answers of an older screen are dropped. */
  const epoch = useRef(0);

  const persist = useCallback((owner: string | null) => {
    const c = current.current;
    if (!owner || !c.id) return;
    void chatCache.putConversation(owner, {
      conversation_id: c.id,
      title: c.title,
      model_id: c.model_id,
      updated_at: new Date().toISOString(),
      messages: c.messages.filter((m) => m.kind !== 'greeting'),
      settings: c.settings,
    });
  }, []);

  const finish = useCallback(
    (replyId: string) => {
      if (generating.current === replyId) setGeneratingId(null);
    },
    [setGeneratingId],
  );

  /**
   * Stop generation: the reply is marked stopped and the worker told to stop. The tokens already on their way still
   * arrive until the server's `done`, so the reply on screen ends where the saved (and charged) one does.
   */
  const stop = useCallback(() => {
    const replyId = generating.current;
    if (!replyId) return;
    const run = runs.current.get(replyId);
    dispatch({ type: 'patch', id: replyId, patch: { status: 'sent', stopped: true } });
    setGeneratingId(null);
    if (!run) return;
    run.stopped = true;
    if (run.started) void stopStream(run.streamId).catch(() => undefined);
    // The server ends the stream with `done` within a second; stop listening anyway if it never does.
    run.giveUp = setTimeout(() => run.controller.abort(), 10_000);
  }, [dispatch, setGeneratingId]);

  /**
   * Leaving the conversation on screen: a reply this tab started is stopped (as before); one it only follows
   * (started before a reload, or in another tab) is left to finish and be saved — this tab just stops listening.
   */
  const leave = useCallback(() => {
    const replyId = generating.current;
    if (!replyId) return;
    const run = runs.current.get(replyId);
    if (!run?.followed) {
      stop();
      return;
    }
    run.controller.abort();
    runs.current.delete(replyId);
    setGeneratingId(null);
  }, [setGeneratingId, stop]);

  const exchange = useCallback(
    /** `replaceFrom`: the server's id of a user message this turn replaces, with what follows it (regenerate, edit). */
    async (user: UiMessage, model: UiModel, replaceFrom?: string) => {
      const owner = userId;
      const myEpoch = epoch.current;
      const replyId = localId('reply');
      setGeneratingId(replyId);
      setError(null);
      const run: Run = { controller: new AbortController(), streamId: newStreamId(), started: false, stopped: false };
      runs.current.set(replyId, run);
      dispatch({
        type: 'add',
        message: { id: replyId, role: 'assistant', content: '', timestamp: new Date().toISOString(), status: 'streaming', model: model.id },
      });

      const fail = (err: unknown, replyHasText: boolean) => {
        const kind = failureKind(err);
        if (replyHasText) dispatch({ type: 'patch', id: replyId, patch: { status: 'error' } });
        else dispatch({ type: 'remove', ids: [replyId] });
        dispatch({ type: 'patch', id: user.id, patch: { status: 'error' } });
        dispatch({
          type: 'add',
          message: {
            id: localId('notice'),
            role: 'assistant',
            content: NOTICE_TEXT[kind],
            timestamp: new Date().toISOString(),
            status: 'sent',
            kind,
            replyTo: user.id,
          },
        });
      };

      let conversationId = current.current.id;
      if (!conversationId) {
        try {
          // Settings the user changed before the first message go with it; the defaults are the server's anyway.
          const { settings } = current.current;
          const changed = (Object.keys(DEFAULT_SETTINGS) as Array<keyof ConversationSettings>).some((k) => settings[k] !== DEFAULT_SETTINGS[k]);
          const created = await createConversation({ title: chatTitle(), modelId: model.id, ...(changed ? { settings } : {}) });
          if (epoch.current !== myEpoch) return;
          conversationId = created.conversation_id ?? created.id;
          dispatch({ type: 'identify', id: conversationId, title: created.title, model_id: created.model_id });
          remember(conversationId);
        } catch (err) {
          runs.current.delete(replyId);
          if (epoch.current !== myEpoch) return;
          dispatch({ type: 'remove', ids: [replyId] });
          dispatch({ type: 'patch', id: user.id, patch: { status: 'error' } });
          setError(failureKind(err) === 'auth' ? TEXT.authRequired : TEXT.errors.create);
          finish(replyId);
          return;
        }
      }

      let text = '';
      try {
        const result = await followStream({
          open: async (signal) => {
            const body = await startStream(
              {
                streamId: run.streamId,
                modelId: model.id,
                prompt: user.content,
                params: paramsOf(current.current.settings),
                conversation_id: conversationId,
                ...(replaceFrom ? { replace_from: replaceFrom } : {}),
              },
              signal,
            );
            run.started = true;
            dispatch({ type: 'patch', id: user.id, patch: { status: 'sent' } });
            // Stopped while the request was on its way: the job exists now, so stop it.
            if (run.stopped) void stopStream(run.streamId).catch(() => undefined);
            return body;
          },
          resume: (lastEventId, signal) => resumeStream(run.streamId, lastEventId, signal),
          onToken: (token) => {
            text += token;
            dispatch({ type: 'append', id: replyId, text: token });
          },
          signal: run.controller.signal,
        });
        if (epoch.current !== myEpoch) return;
        if (result.type === 'done') {
          dispatch({ type: 'patch', id: replyId, patch: { ...ended(result), tokens: result.usage.completion_tokens, model: model.id } });
          dispatch({ type: 'patch', id: user.id, patch: { status: 'sent', tokens: result.usage.prompt_tokens } });
        }
      } catch (err) {
        if (epoch.current !== myEpoch || run.controller.signal.aborted) return;
        if (run.stopped && run.started) return; // a failure after Stop: the reply is already final
        fail(err, text.length > 0);
      } finally {
        clearTimeout(run.giveUp);
        runs.current.delete(replyId);
        if (tokenStore.get()) {
          // Balance and history changed (the hold settled), and so did the conversation's place in the list.
          void invalidateBalance(queryClient);
          void queryClient.invalidateQueries({ queryKey: chatQueries.lists() });
        }
        if (epoch.current === myEpoch) {
          finish(replyId);
          if (current.current.id === conversationId) persist(owner);
        }
      }
    },
    [createConversation, dispatch, finish, persist, queryClient, setGeneratingId, userId],
  );

  /** Sends a message (never blank, never while a reply streams, never without a model). */
  const send = useCallback(
    (content: string, model: UiModel | null) => {
      if (!content.trim() || generating.current || !model) return false;
      const user: UiMessage = { id: localId('user'), role: 'user', content, timestamp: new Date().toISOString(), status: 'sending' };
      dispatch({ type: 'add', message: user });
      void exchange(user, model);
      return true;
    },
    [dispatch, exchange],
  );

  /** Retry of a failed user message: its notices go, and it is sent again. */
  const retry = useCallback(
    (messageId: string, model: UiModel | null) => {
      if (generating.current || !model) return;
      const user = current.current.messages.find((m) => m.id === messageId && m.role === 'user');
      if (!user) return;
      const notices = current.current.messages.filter((m) => m.replyTo === messageId).map((m) => m.id);
      dispatch({ type: 'remove', ids: notices });
      dispatch({ type: 'patch', id: messageId, patch: { status: 'sending' } });
      void exchange({ ...user, status: 'sending' }, model);
    },
    [dispatch, exchange],
  );

  /**
   * Sends `content` in place of a user message of the open conversation, discarding it and everything after it
   * (the server does the same: stream/start's replace_from). The server's id of that message is found by its place
   * among the user messages the server holds (a local message that never reached it, a failed send, is skipped).
   */
  const replaceTurn = useCallback(
    async (messageId: string, content: string, model: UiModel | null) => {
      const open = current.current;
      if (generating.current || !model || !open.id || !content.trim()) return;
      const at = open.messages.findIndex((m) => m.id === messageId && m.role === 'user');
      if (at < 0) return;
      const saved = (m: UiMessage) => m.role === 'user' && !m.kind && m.status !== 'error';
      const place = open.messages.slice(0, at).filter(saved).length;
      let serverId: string | undefined;
      try {
        serverId = (await getConversation(open.id)).messages.filter((m) => m.role === 'user')[place]?.id;
      } catch {
        setError(TEXT.errors.load);
        return;
      }
      if (!serverId || current.current.id !== open.id || generating.current) return;
      dispatch({ type: 'remove', ids: current.current.messages.slice(at).map((m) => m.id) });
      const user: UiMessage = { id: localId('user'), role: 'user', content, timestamp: new Date().toISOString(), status: 'sending' };
      dispatch({ type: 'add', message: user });
      void exchange(user, model, serverId);
    },
    [dispatch, exchange],
  );

  /** Generates the last reply again (its user message sent anew); the old reply goes, its charge stays in the wallet. */
  const regenerate = useCallback(
    (model: UiModel | null) => {
      const messages = current.current.messages;
      const reply = messages.findLastIndex((m) => m.role === 'assistant' && !m.kind);
      const user = messages.slice(0, reply).findLast((m) => m.role === 'user');
      if (reply < 0 || !user) return;
      void replaceTurn(user.id, user.content, model);
    },
    [replaceTurn],
  );

  /** Sends an edited user message in place of the original; the messages after it are discarded. */
  const edit = useCallback((messageId: string, content: string, model: UiModel | null) => void replaceTurn(messageId, content, model), [replaceTurn]);

  /**
   * The open conversation's system prompt and parameters: saved on the server when it has one (else kept for its
   * creation with the first message). Resolves false when the server refused them.
   */
  const { mutateAsync: updateConversation } = useMutation(chatMutations.update());
  const saveSettings = useCallback(
    async (settings: ConversationSettings): Promise<boolean> => {
      const id = current.current.id;
      if (id) {
        try {
          await updateConversation({ id, settings });
        } catch {
          return false;
        }
        if (current.current.id !== id) return true;
      }
      dispatch({ type: 'settings', settings });
      if (id) persist(userId);
      return true;
    },
    [dispatch, persist, updateConversation, userId],
  );

  /** Stops listening to every stream and drops answers still on their way. */
  const detach = useCallback(() => {
    epoch.current += 1;
    for (const run of runs.current.values()) {
      clearTimeout(run.giveUp);
      run.controller.abort();
    }
    runs.current.clear();
    setGeneratingId(null);
  }, [setGeneratingId]);

  /** New conversation — one greeting, and the remembered id is cleared. */
  const newConversation = useCallback(() => {
    leave();
    epoch.current += 1;
    setGeneratingId(null);
    setError(null);
    forget();
    dispatch({ type: 'reset', conversation: freshConversation() });
  }, [dispatch, leave, setGeneratingId]);

  /** Clear conversation: an empty screen (the server keeps the conversation); the next message starts a new one. */
  const clear = useCallback(() => {
    leave();
    epoch.current += 1;
    setGeneratingId(null);
    setError(null);
    forget();
    dispatch({ type: 'reset', conversation: { id: null, title: TEXT.defaultTitle, model_id: null, messages: [], settings: DEFAULT_SETTINGS } });
  }, [dispatch, leave, setGeneratingId]);

  /**
   * A reply generated for the open conversation that this tab did not start (the page was reloaded, or another
   * tab sent it): shown as a streaming bubble, read from its first event (GET stream/{id}), stoppable; when it
   * ends, the conversation is loaded again so the saved reply takes the bubble's place.
   */
  const follow = useCallback(
    async (active: ActiveStream, conversationId: string) => {
      const owner = userId;
      const myEpoch = epoch.current;
      const replyId = localId('reply');
      const run: Run = { controller: new AbortController(), streamId: active.stream_id, started: true, stopped: false, followed: true };
      runs.current.set(replyId, run);
      setGeneratingId(replyId);
      dispatch({
        type: 'add',
        message: { id: replyId, role: 'assistant', content: '', timestamp: active.started_at, status: 'streaming', model: active.model_id },
      });
      try {
        const result = await followStream({
          open: (signal) => resumeStream(run.streamId, 0, signal),
          resume: (lastEventId, signal) => resumeStream(run.streamId, lastEventId, signal),
          onToken: (token) => dispatch({ type: 'append', id: replyId, text: token }),
          signal: run.controller.signal,
        });
        if (epoch.current === myEpoch && result.type === 'done') {
          dispatch({ type: 'patch', id: replyId, patch: { ...ended(result), tokens: result.usage.completion_tokens } });
        }
      } catch {
        // An error event, or the stream already gone (404): either way the server saved the reply (or its
        // error) with the conversation, which is loaded again below.
      } finally {
        clearTimeout(run.giveUp);
        runs.current.delete(replyId);
        const aborted = run.controller.signal.aborted && !run.stopped;
        if (tokenStore.get() && !aborted) {
          void invalidateBalance(queryClient);
          void queryClient.invalidateQueries({ queryKey: chatQueries.lists() });
        }
        if (epoch.current === myEpoch) {
          finish(replyId);
          // The saved reply replaces the live one — unless the user already sent the next message here.
          if (!aborted && !generating.current && current.current.id === conversationId) {
            try {
              const c = await getConversation(conversationId);
              if (epoch.current === myEpoch && !generating.current && current.current.id === conversationId) {
                dispatch({ type: 'reset', conversation: fromServer(c) });
                persist(owner);
              }
            } catch {
              dispatch({ type: 'patch', id: replyId, patch: { status: 'sent' } });
            }
          }
        }
      }
    },
    [dispatch, finish, persist, queryClient, setGeneratingId, userId],
  );

  /** Opens a conversation (and selects its model); on failure shows the cached copy when there is one. */
  const open = useCallback(
    async (id: string, { quietIfGone = false } = {}) => {
      leave();
      epoch.current += 1;
      const myEpoch = epoch.current;
      setGeneratingId(null);
      setError(null);
      setLoading(true);
      try {
        const c = await getConversation(id);
        if (epoch.current !== myEpoch) return;
        const opened = fromServer(c);
        dispatch({ type: 'reset', conversation: opened });
        remember(opened.id!);
        if (opened.model_id) onModelRef.current?.(opened.model_id);
        persist(userId);
        // A reply is being generated for it that this tab is not following: show it live.
        const active = c.active_stream;
        if (active && ![...runs.current.values()].some((r) => r.streamId === active.stream_id && !r.stopped)) void follow(active, opened.id!);
      } catch (err) {
        if (epoch.current !== myEpoch) return;
        const gone = err instanceof ApiError && err.status === 404;
        if (gone) {
          forget();
          if (userId) void chatCache.deleteConversation(userId, id);
          if (quietIfGone) return;
        }
        setError(TEXT.errors.load);
        const cached = !gone && userId ? await chatCache.getConversation(userId, id) : null;
        if (cached && epoch.current === myEpoch) {
          dispatch({
            type: 'reset',
            conversation: {
              id: cached.conversation_id,
              title: cached.title,
              model_id: cached.model_id,
              messages: cached.messages,
              settings: cached.settings ?? DEFAULT_SETTINGS,
            },
          });
          if (cached.model_id) onModelRef.current?.(cached.model_id);
        }
      } finally {
        if (epoch.current === myEpoch) setLoading(false);
      }
    },
    [dispatch, follow, leave, persist, setGeneratingId, userId],
  );

  /** The sidebar renamed the open conversation. */
  const renamed = useCallback(
    (id: string, title: string) => {
      if (current.current.id === id) dispatch({ type: 'rename', title });
    },
    [dispatch],
  );

  /** The sidebar deleted a conversation: if it is the open one, start afresh. */
  const deleted = useCallback(
    (id: string) => {
      if (userId) void chatCache.deleteConversation(userId, id);
      if (current.current.id === id) newConversation();
    },
    [newConversation, userId],
  );

  // Read once, at the first load: later URL changes are the page's to follow (AssistantPage).
  const initialIdRef = useRef(initialId);
  // The latest `open`, without making the first load depend on it: that runs once per signed-in user.
  const reopen = useEffectEvent((id: string) => open(id, { quietIfGone: true }));

  // First load: the cache belongs to this user (else it is emptied), then the remembered conversation reopens.
  useEffect(() => {
    let cancelled = false;
    void (async () => {
      if (userId && (await chatCache.ensureUser(userId))) forget();
      const last = initialIdRef.current ?? rememberedConversation();
      if (!cancelled && last && userId) await reopen(last);
      if (!cancelled) setBooting(false);
    })();
    return () => {
      cancelled = true;
    };
  }, [userId]);

  // The access token removed (here or in another tab) — clear the chat, back to the greeting,
  // and drop every local copy of it.
  useEffect(() => {
    return tokenStore.subscribe((tokens) => {
      if (tokens?.access_token) return;
      detach();
      setError(null);
      forget();
      dispatch({ type: 'reset', conversation: freshConversation() });
      void chatCache.clear();
      queryClient.removeQueries({ queryKey: chatQueries.all });
    });
  }, [detach, dispatch, queryClient]);

  // Leaving the page stops listening (the server still finishes and saves the reply).
  useEffect(() => () => runs.current.forEach((run) => run.controller.abort()), []);

  const tokensUsed = conversation.messages.reduce((n, m) => n + (m.tokens ?? 0), 0);

  return {
    conversation,
    tokensUsed,
    generating: generatingId !== null,
    error,
    setError,
    loading,
    booting,
    send,
    stop,
    retry,
    regenerate,
    edit,
    saveSettings,
    newConversation,
    clear,
    open,
    renamed,
    deleted,
  };
}
