import { queryOptions } from '@tanstack/react-query';
import { chatQueries, type ConversationSettings } from '../../api/queries/chat';
import type { UiMessage } from './types';

/**
 * The client-side chat cache — an IndexedDB database (version 2) with a `conversations` store and a
 * `settings` store, keyed by user id plus conversation id. It shows a conversation when the server fails, and is
 * cleared when the signed-in user changes. Where IndexedDB is missing (jsdom, some private modes) the same
 * cache lives in memory for the page's lifetime.
 */
export const CACHE_DB_NAME = 'glob-chat-cache';
export const CACHE_DB_VERSION = 2;
export type StoreName = 'conversations' | 'settings';

export interface CachedConversation {
  /** `${userId}:${conversationId}` */
  key: string;
  user_id: string;
  conversation_id: string;
  title: string;
  model_id: string | null;
  updated_at: string;
  messages: UiMessage[];
  /** Absent in copies written before conversations had settings. */
  settings?: ConversationSettings;
}

interface Setting {
  key: string;
  value: string;
}

/** The storage under the cache: IndexedDB in browsers, a Map elsewhere. */
export interface CacheBackend {
  get<T>(store: StoreName, key: string): Promise<T | undefined>;
  put<T extends { key: string }>(store: StoreName, value: T): Promise<void>;
  delete(store: StoreName, key: string): Promise<void>;
  clear(store: StoreName): Promise<void>;
}

export function memoryBackend(): CacheBackend {
  const stores: Record<StoreName, Map<string, unknown>> = { conversations: new Map(), settings: new Map() };
  return {
    get: async <T>(store: StoreName, key: string) => structuredClone(stores[store].get(key)) as T | undefined,
    put: async (store, value) => void stores[store].set(value.key, structuredClone(value)),
    delete: async (store, key) => void stores[store].delete(key),
    clear: async (store) => stores[store].clear(),
  };
}

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

// Kept over idb-keyval, which keeps one store per database keyed out of line: this is one version-2 database of two stores keyed by `key`, already in visitors' browsers.
export function indexedDbBackend(factory: IDBFactory): CacheBackend {
  let opening: Promise<IDBDatabase> | null = null;
  const open = () =>
    (opening ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = factory.open(CACHE_DB_NAME, CACHE_DB_VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        for (const name of ['conversations', 'settings'] as const) {
          if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, { keyPath: 'key' });
        }
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => {
        opening = null;
        reject(req.error);
      };
    }));
  const store = async (name: StoreName, mode: IDBTransactionMode) => (await open()).transaction(name, mode).objectStore(name);
  return {
    get: async <T>(name: StoreName, key: string) => (await request((await store(name, 'readonly')).get(key))) as T | undefined,
    put: async (name, value) => void (await request((await store(name, 'readwrite')).put(value))),
    delete: async (name, key) => void (await request((await store(name, 'readwrite')).delete(key))),
    clear: async (name) => void (await request((await store(name, 'readwrite')).clear())),
  };
}

/** IndexedDB when it works; memory otherwise (also when opening the database fails). */
function defaultBackend(): CacheBackend {
  const factory = typeof indexedDB === 'undefined' ? null : indexedDB;
  if (!factory) return memoryBackend();
  const idb = indexedDbBackend(factory);
  const memory = memoryBackend();
  let usable: Promise<CacheBackend> | null = null;
  const pick = () =>
    (usable ??= idb
      .get('settings', 'user_id')
      .then(() => idb)
      .catch(() => memory));
  return {
    get: async (s, k) => (await pick()).get(s, k),
    put: async (s, v) => (await pick()).put(s, v),
    delete: async (s, k) => (await pick()).delete(s, k),
    clear: async (s) => (await pick()).clear(s),
  };
}

const keyOf = (userId: string, conversationId: string) => `${userId}:${conversationId}`;

export function createChatCache(backend: CacheBackend) {
  /** Every call swallows storage failures: the cache is a fallback, never a reason for an error. */
  const safe = async <T>(work: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await work();
    } catch {
      return fallback;
    }
  };
  return {
    /** Records who the cache belongs to; a different signed-in user empties it first. Resolves true when it did. */
    ensureUser: (userId: string) =>
      safe(async () => {
        const owner = await backend.get<Setting>('settings', 'user_id');
        const changed = Boolean(owner && owner.value !== userId);
        if (changed) await Promise.all([backend.clear('conversations'), backend.clear('settings')]);
        if (!owner || changed) await backend.put('settings', { key: 'user_id', value: userId } satisfies Setting);
        return changed;
      }, false),
    getConversation: (userId: string, conversationId: string) =>
      safe(async () => (await backend.get<CachedConversation>('conversations', keyOf(userId, conversationId))) ?? null, null),
    putConversation: (userId: string, c: Omit<CachedConversation, 'key' | 'user_id'>) =>
      safe(() => backend.put('conversations', { ...c, key: keyOf(userId, c.conversation_id), user_id: userId }), undefined),
    deleteConversation: (userId: string, conversationId: string) =>
      safe(() => backend.delete('conversations', keyOf(userId, conversationId)), undefined),
    clear: () => safe(async () => void (await Promise.all([backend.clear('conversations'), backend.clear('settings')])), undefined),
  };
}

export type ChatCache = ReturnType<typeof createChatCache>;

/** The app's one chat cache. */
export const chatCache: ChatCache = createChatCache(defaultBackend());

/** This browser's copy of a conversation, read when the server cannot give it (null when there is none). */
export const cachedConversation = (userId: string | null, conversationId: string | null) =>
  queryOptions({
    queryKey: [...chatQueries.all, 'cached', userId, conversationId] as const,
    queryFn: () => (userId && conversationId ? chatCache.getConversation(userId, conversationId) : null),
  });
