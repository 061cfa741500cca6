import { describe, expect, it } from '@jest/globals';
import { newIdempotencyKey } from './wallet';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newIdempotencyKey', () => {
  it('is a random UUID', () => {
    const a = newIdempotencyKey();
    expect(a).toMatch(UUID);
    expect(newIdempotencyKey()).not.toBe(a);
  });

  it('still makes a v4 UUID where crypto.randomUUID is missing (a page served over plain http)', () => {
    const own = Object.getOwnPropertyDescriptor(globalThis.crypto, 'randomUUID');
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    expect(typeof globalThis.crypto.randomUUID).toBe('undefined');
    try {
      const key = newIdempotencyKey();
      expect(key).toMatch(UUID);
      expect(newIdempotencyKey()).not.toBe(key);
    } finally {
      if (own) Object.defineProperty(globalThis.crypto, 'randomUUID', own);
      else delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
  });
});
