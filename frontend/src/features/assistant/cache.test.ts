import { describe, expect, it } from '@jest/globals';
import { CACHE_DB_VERSION, chatCache, createChatCache, memoryBackend, type CacheBackend } from './cache';

const conversation = (id: string, title = 'A chat') => ({
  conversation_id: id,
  title,
  model_id: 'llama-3.3-70b-instruct',
  updated_at: '2026-11-21T10:15:04.000Z',
  messages: [{ id: 'm1', role: 'user' as const, content: 'Hi', timestamp: '2026-11-21T10:15:00.000Z', status: 'sent' as const }],
});

describe('chat cache', () => {
  it('is database version 2 with conversations and settings stores', () => {
    expect(CACHE_DB_VERSION).toBe(2);
  });

  it('keys conversations by user id plus conversation id', async () => {
    const cache = createChatCache(memoryBackend());
    await cache.ensureUser('u1');
    await cache.putConversation('u1', conversation('c1', 'Mine'));
    expect(await cache.getConversation('u1', 'c1')).toMatchObject({ key: 'u1:c1', user_id: 'u1', title: 'Mine', messages: [{ content: 'Hi' }] });
    expect(await cache.getConversation('u2', 'c1')).toBeNull();
    await cache.deleteConversation('u1', 'c1');
    expect(await cache.getConversation('u1', 'c1')).toBeNull();
  });

  it('is emptied when a different user signs in, and kept for the same user', async () => {
    const cache = createChatCache(memoryBackend());
    expect(await cache.ensureUser('u1')).toBe(false);
    await cache.putConversation('u1', conversation('c1'));
    expect(await cache.ensureUser('u1')).toBe(false);
    expect(await cache.getConversation('u1', 'c1')).not.toBeNull();
    expect(await cache.ensureUser('u2')).toBe(true);
    expect(await cache.getConversation('u1', 'c1')).toBeNull();
    expect(await cache.ensureUser('u2')).toBe(false);
  });

  it('never throws when the storage fails: it is only a fallback', async () => {
    const broken: CacheBackend = {
      get: () => Promise.reject(new Error('quota')),
      put: () => Promise.reject(new Error('quota')),
      delete: () => Promise.reject(new Error('quota')),
      clear: () => Promise.reject(new Error('quota')),
    };
    const cache = createChatCache(broken);
    await expect(cache.ensureUser('u1')).resolves.toBe(false);
    await expect(cache.putConversation('u1', conversation('c1'))).resolves.toBeUndefined();
    await expect(cache.getConversation('u1', 'c1')).resolves.toBeNull();
    await expect(cache.clear()).resolves.toBeUndefined();
  });

  it('keeps working in memory where IndexedDB is missing (jsdom)', async () => {
    expect(typeof indexedDB).toBe('undefined');
    await chatCache.clear();
    await chatCache.putConversation('u1', conversation('c9'));
    expect(await chatCache.getConversation('u1', 'c9')).toMatchObject({ conversation_id: 'c9' });
    await chatCache.clear();
    expect(await chatCache.getConversation('u1', 'c9')).toBeNull();
  });
});
