import { describe, expect, it } from '@jest/globals';
import { handlersByTag } from './handlers';
import { specOperations } from './examples';

/** MSW path syntax of a spec path: /api/users/{id} -> /api/users/:id */
const toMswPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');
const sample = (path: string) => path.replace(/\{[^}]+\}/g, '6f1c2b0a-93e4-4d8f-8c3e-2a7b5d9e1f04');

const registered = Object.entries(handlersByTag).flatMap(([tag, handlers]) =>
  handlers.map((h) => ({ tag, method: String(h.info.method).toLowerCase(), path: String(h.info.path) })),
);

describe('MSW handlers mirror the spec', () => {
  const operations = specOperations();

  it('reads the spec (sanity)', () => {
    expect(operations.length).toBeGreaterThan(10);
  });

  it.each(operations.map((op) => [op.operationId, op] as const))('%s has a handler in its tag file', (_id, op) => {
    const match = registered.find((h) => h.method === op.method && h.path === toMswPath(op.path));
    expect(match).toBeDefined();
    expect(match?.tag).toBe(op.tag);
  });

  it('has no handler for an operation the spec does not describe', () => {
    const known = new Set(operations.map((op) => `${op.method} ${toMswPath(op.path)}`));
    const extra = registered.filter((h) => !known.has(`${h.method} ${h.path}`));
    expect(extra).toEqual([]);
  });

  it.each(operations.map((op) => [op.operationId, op] as const))('%s answers with a status its spec documents', async (_id, op) => {
    const response = await fetch(`http://localhost${sample(op.path)}`, {
      method: op.method.toUpperCase(),
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer test' },
      body: ['get', 'head', 'delete'].includes(op.method) ? undefined : JSON.stringify({ platform: 'windows', asset: 'x' }),
    });
    expect(op.statuses).toContain(response.status);
    expect(response.status).toBeLessThan(300);
  });
});
