import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { loadSpec, specOperations, toExpressPath } from '../../src/contract/spec';
import { expectSpecResponse } from '../support/contract';
import { register } from '../support/users';
import { startStack, TestStack } from '../support/app';

interface NestRoute {
  method: string;
  path: string;
  handler: string;
}

function nestRoutes(stack: TestStack): NestRoute[] {
  const routes: NestRoute[] = [];
  for (const mod of stack.app.get(ModulesContainer).values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as { prototype: Record<string, unknown> } | undefined;
      if (!ctrl) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '');
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const fn = ctrl.prototype[name];
        if (name === 'constructor' || typeof fn !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, fn) as string | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        routes.push({
          method: RequestMethod[method].toLowerCase(),
          path: `/${[base, path].filter(Boolean).join('/')}`.replace(/\/+/g, '/'),
          handler: name,
        });
      }
    }
  }
  return routes;
}

type Param = { name: string; in: string; required?: boolean; schema?: { format?: string; enum?: string[]; type?: string; pattern?: string } };

/** A request that satisfies the spec's rules for this operation, built from the spec itself. */
function exampleRequest(path: string, method: string, accessToken: string) {
  const item = (loadSpec().paths as Record<string, Record<string, unknown>>)[path]!;
  const op = item[method] as { parameters?: Param[]; requestBody?: { content: Record<string, { example?: unknown }> }; security?: unknown[] };
  const deref = <T>(node: T): T => {
    const ref = (node as { $ref?: string }).$ref;
    return ref
      ? (ref
          .slice(2)
          .split('/')
          .reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], loadSpec()) as T)
      : node;
  };
  const params = [...((item.parameters as Param[]) ?? []), ...(op.parameters ?? [])]
    .map(deref)
    .map((p) => ({ ...p, schema: p.schema && deref(p.schema) }));
  let url = path;
  const headers: Record<string, string> = {};
  for (const p of params) {
    const s = p.schema ?? {};
    const value = s.enum?.[0] ?? (s.format === 'uuid' ? randomUUID() : s.type === 'integer' ? '1' : 'abc123');
    if (p.in === 'path') url = url.replace(`{${p.name}}`, value);
    if (p.in === 'header' && p.required) headers[p.name] = value;
  }
  if (op.security === undefined) headers.Authorization = `Bearer ${accessToken}`;
  // A JSON body where the operation takes one, else its own media type's example (a streamed body's lines).
  const [mediaType, content] = Object.entries(op.requestBody?.content ?? {}).sort(([a]) => (a === 'application/json' ? -1 : 1))[0] ?? [];
  if (mediaType && mediaType !== 'application/json') headers['Content-Type'] = mediaType;
  const body = content?.example;
  return { url, headers, body };
}

describe('contract: the spec and the server describe the same API', () => {
  let stack: TestStack;
  const notLive: string[] = [];
  let accessToken = '';
  beforeAll(async () => {
    stack = await startStack();
    // Signed-in operations are called as a real user, so they reach their controllers.
    accessToken = (await register(stack, 'contract@example.com', 'a long and unusual passphrase')).access_token;
  });
  afterAll(async () => {
    await stack.close();
    if (notLive.length) {
      process.stdout.write(`\nOperations still answering 501 (${notLive.length}):\n${notLive.map((o) => `  ${o}`).join('\n')}\n`);
    }
  });

  it('every spec operation has a Nest route with the same method and path, named after its operationId, and the reverse', () => {
    const routes = nestRoutes(stack);
    const key = (m: string, p: string) => `${m.toUpperCase()} ${p}`;
    const fromSpec = new Map(specOperations().map((o) => [key(o.method, toExpressPath(o.path)), o.operationId]));
    const fromNest = new Map(routes.map((r) => [key(r.method, r.path), r.handler]));
    expect([...fromNest.keys()].filter((k) => !fromSpec.has(k))).toEqual([]);
    expect([...fromSpec.keys()].filter((k) => !fromNest.has(k))).toEqual([]);
    for (const [k, operationId] of fromSpec) expect(`${k} → ${fromNest.get(k)}`).toBe(`${k} → ${operationId}`);
  });

  it('every operationId is camelCase, unique, tagged and documents its errors in the Error shape', () => {
    const ops = specOperations();
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    for (const o of ops) {
      expect(o.operationId).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(o.tag).not.toBe('');
      expect(o.responses.some((s) => s.startsWith('4'))).toBe(true);
    }
  });

  it.each(specOperations().map((o) => [o.operationId, o] as const))('%s answers a spec-valid request with a documented response', async (_id, o) => {
    const { url, headers, body } = exampleRequest(o.path, o.method, accessToken);
    let req = stack.http[o.method as 'get'](url).set(headers);
    if (body !== undefined) req = req.send(body as object | string);
    const res = await req;
    expect(res.status).toBeLessThan(500 + (o.responses.includes(String(res.status)) ? 100 : 0));
    expectSpecResponse(res, o.operationId);
    if (res.status === 501) {
      expect(res.body).toEqual({ statusCode: 501, message: 'This operation is not available yet', error: 'Not Implemented' });
      notLive.push(`${o.method.toUpperCase()} ${o.path} (${o.operationId})`);
    } else {
      // A live operation must not still claim to be unimplemented.
      expect(o.responses).not.toContain('501');
    }
  });
});
