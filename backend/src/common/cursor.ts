import { BadRequestException } from '@nestjs/common';

/** Opaque keyset cursor: the sort keys of the last row of a page, newest first. */
export function encodeKeys(keys: Array<string | number | boolean>): string {
  return Buffer.from(JSON.stringify(keys)).toString('base64url');
}

/** The keys back, checked against the kinds expected ('string', 'date', 'boolean'…); 400 for anything else. */
export function decodeKeys(cursor: string, kinds: Array<'string' | 'date' | 'boolean'>): Array<string | boolean> {
  try {
    const keys = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const ok =
      Array.isArray(keys) &&
      keys.length === kinds.length &&
      kinds.every((k, i) => (k === 'date' ? typeof keys[i] === 'string' && !Number.isNaN(Date.parse(keys[i] as string)) : typeof keys[i] === k));
    if (!ok) throw new Error('bad');
    return keys as Array<string | boolean>;
  } catch {
    throw new BadRequestException('cursor: not a cursor this API issued');
  }
}

/** The common case: (created_at, id). */
export function encodeCursor(at: Date, id: string): string {
  return encodeKeys([at.toISOString(), id]);
}

/** Where a page starts: after the row with these keys. */
export interface Cursor {
  at: string;
  id: string;
}

export function decodeCursor(cursor: string): Cursor {
  const [at, id] = decodeKeys(cursor, ['date', 'string']) as [string, string];
  return { at, id };
}
