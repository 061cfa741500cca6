import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PANEL_SECRET_HEADER, type PanelState } from '../src/desktop/panel-api';
import { type PanelBackend, PanelHttpError, type PanelServer, startPanelServer } from '../src/desktop/panel-server';
import { panelStateFixture, panelUpdateFixture } from './desktop-fixtures';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly the headers given (Host included), as a browser or another page would send it. */
function send(port: number, path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...o.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

function fakeBackend(state: PanelState) {
  const calls: Array<[string, unknown]> = [];
  const backend: PanelBackend = {
    state: () => state,
    platform: () => Promise.reject(new PanelHttpError(503, 'The platform cannot be reached; try again in a moment')),
    setSharing: async (on) => {
      calls.push(['sharing', on]);
      state.sharing = on;
    },
    setAllocation: async (a) => void calls.push(['allocation', a]),
    setIdleOnly: async (v) => void calls.push(['idle-only', v]),
    setStartAtLogin: async (v) => void calls.push(['start-at-login', v]),
    pair: async (api) => void calls.push(['pair', api]),
    createPool: async (body) => {
      calls.push(['pool', body]);
      throw new PanelHttpError(409, 'A node belongs to at most one pool');
    },
    leavePool: async (id) => void calls.push(['leave', id]),
    checkUpdate: async () => void calls.push(['check-update', null]),
    restartToUpdate: () => void calls.push(['restart-update', null]),
    quit: () => void calls.push(['quit', null]),
  };
  return { backend, calls };
}

describe('the panel server', () => {
  let dir: string;
  let server: PanelServer;
  let calls: Array<[string, unknown]>;
  let state: PanelState;
  /** The header the panel sends its secret in. */
  let secret: Record<string, string>;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-panel-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
    await writeFile(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
    await writeFile(join(dir, '..', 'secret.txt'), 'outside');
    state = panelStateFixture();
    const fake = fakeBackend(state);
    calls = fake.calls;
    server = await startPanelServer({ backend: fake.backend, panelDir: dir });
    secret = { [PANEL_SECRET_HEADER]: server.secret };
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
    await rm(join(dir, '..', 'secret.txt'), { force: true });
  });

  it('listens on a free port of 127.0.0.1 with a 32-byte secret in its URL’s fragment (never sent to a server)', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(Buffer.from(server.secret, 'base64url')).toHaveLength(32);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#secret=${server.secret}`);
  });

  it('refuses an API request without the secret, with a wrong one, or with it only as a cookie or query (403)', async () => {
    const api = await send(server.port, '/local/state');
    expect(api.status).toBe(403);
    expect(JSON.parse(api.body)).toMatchObject({ statusCode: 403, message: expect.any(String) });
    expect((await send(server.port, '/local/state', { headers: { [PANEL_SECRET_HEADER]: 'wrong' } })).status).toBe(403);
    expect((await send(server.port, '/local/state', { headers: { cookie: `glob_panel=${server.secret}` } })).status).toBe(403);
    expect((await send(server.port, `/local/state?secret=${server.secret}`)).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('serves the panel’s page (it holds no secret) and sets no cookie', async () => {
    const page = await send(server.port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.body).toContain('id="root"');
  });

  it('with the secret in its header, GET /local/state answers the PanelState', async () => {
    const r = await send(server.port, '/local/state', { headers: secret });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ phase: 'sharing', sharing: true, node: { name: 'living-room-pc' } });
  });

  it('refuses another Host (DNS rebinding) even with the secret; localhost:PORT is fine', async () => {
    for (const host of [`evil.example:${server.port}`, '127.0.0.1', `127.0.0.1:${server.port + 1}`]) {
      const r = await send(server.port, `/local/state`, { headers: { host, ...secret } });
      expect([403, 421]).toContain(r.status);
      expect((await send(server.port, `/`, { headers: { host } })).status).toBe(403);
    }
    expect((await send(server.port, '/local/state', { headers: { host: `localhost:${server.port}`, ...secret } })).status).toBe(200);
  });

  it('a POST needs a JSON content type (415) and, with an Origin, this origin (403)', async () => {
    const plain = await send(server.port, '/local/sharing', {
      method: 'POST',
      headers: { ...secret, 'content-type': 'text/plain' },
      body: '{"sharing":false}',
    });
    expect(plain.status).toBe(415);
    const none = await send(server.port, '/local/sharing', { method: 'POST', headers: secret, body: '{"sharing":false}' });
    expect([400, 415]).toContain(none.status);
    const cross = await send(server.port, '/local/sharing', {
      method: 'POST',
      headers: { ...secret, ...json, origin: 'https://evil.example' },
      body: '{"sharing":false}',
    });
    expect(cross.status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('POST /local/sharing calls the app and answers the new state', async () => {
    const r = await send(server.port, '/local/sharing', {
      method: 'POST',
      headers: { ...secret, 'content-type': 'application/json; charset=utf-8', origin: `http://127.0.0.1:${server.port}` },
      body: '{"sharing":false}',
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ sharing: false });
    expect(calls).toContainEqual(['sharing', false]);
  });

  it('checks bodies (400 with the reason) and passes the app’s errors on as { statusCode, message }', async () => {
    const bad = await send(server.port, '/local/allocation', { method: 'POST', headers: { ...secret, ...json }, body: '{"cpu_percent":95}' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({ statusCode: 400, message: 'cpu_percent must be a whole number from 10 to 80' });
    const allocation = { cpu_percent: 30, memory_percent: 40, gpu_percent: 0, disk_gb: 20 };
    expect(
      (await send(server.port, '/local/allocation', { method: 'POST', headers: { ...secret, ...json }, body: JSON.stringify(allocation) })).status,
    ).toBe(200);
    expect(calls).toContainEqual(['allocation', allocation]);
    const platform = await send(server.port, '/local/platform', { headers: secret });
    expect(platform.status).toBe(503);
    const pool = await send(server.port, '/local/pools', {
      method: 'POST',
      headers: { ...secret, ...json },
      body: JSON.stringify({
        name: 'study',
        model_id: 'm',
        node_ids: ['7c1e9a52-3b8d-4f60-a2e4-9d5b1c7f3e08', '2d9f4a61-8b3c-4e5d-a7f0-1c6b9e2d4a83'],
      }),
    });
    expect(JSON.parse(pool.body)).toEqual({ statusCode: 409, message: 'A node belongs to at most one pool' });
    expect(
      (await send(server.port, '/local/idle-only', { method: 'POST', headers: { ...secret, ...json }, body: '{"enabled":true,"minutes":0}' })).status,
    ).toBe(400);
    expect((await send(server.port, '/local/pair', { method: 'POST', headers: { ...secret, ...json }, body: '{"api":"ftp://x"}' })).status).toBe(400);
    expect((await send(server.port, '/local/nothing', { headers: secret })).status).toBe(404);
    expect((await send(server.port, '/local/state', { method: 'POST', headers: { ...secret, ...json } })).status).toBe(405);
  });

  it('DELETE /local/pools/:id leaves the pool (204); POST /local/quit answers 202, then quits', async () => {
    const id = '4f2b8c1d-6e3a-4b7f-9c0d-2a5e8f1b3c7d';
    expect((await send(server.port, `/local/pools/${id}`, { method: 'DELETE', headers: secret })).status).toBe(204);
    expect(calls).toContainEqual(['leave', id]);
    expect((await send(server.port, '/local/quit', { method: 'POST', headers: { ...secret, ...json } })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toContainEqual(['quit', null]);
  });

  it('POST /local/update/check looks for a release; /local/update/restart is refused (409) until one is ready, then answers 202 and restarts', async () => {
    expect((await send(server.port, '/local/update/check', { method: 'POST', headers: { ...secret, ...json } })).status).toBe(200);
    expect(calls).toContainEqual(['check-update', null]);
    const early = await send(server.port, '/local/update/restart', { method: 'POST', headers: { ...secret, ...json } });
    expect(early.status).toBe(409);
    expect(JSON.parse(early.body)).toEqual({ statusCode: 409, message: 'No update is ready to install' });
    expect(calls).not.toContainEqual(['restart-update', null]);
    state.update = panelUpdateFixture({ ready: true, phase: 'ready', version: '0.2.0' });
    expect((await send(server.port, '/local/update/restart', { method: 'POST', headers: { ...secret, ...json } })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toContainEqual(['restart-update', null]);
    state.update = panelUpdateFixture();
    // Without the secret, nobody restarts the app.
    expect((await send(server.port, '/local/update/restart', { method: 'POST', headers: json })).status).toBe(403);
  });

  it('serves the panel’s files, its pages from index.html, and nothing outside its directory', async () => {
    const js = await send(server.port, '/assets/app-1234.js', { headers: secret });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect((await send(server.port, '/settings', { headers: secret })).body).toContain('id="root"');
    expect((await send(server.port, '/assets/missing.js', { headers: secret })).status).toBe(404);
    expect((await send(server.port, '/../secret.txt', { headers: secret })).status).toBe(404);
    expect((await send(server.port, '/%2e%2e/secret.txt', { headers: secret })).status).toBe(404);
  });

  it('answers 503 with how to build it when the panel is not built', async () => {
    const empty = await startPanelServer({ backend: fakeBackend(panelStateFixture()).backend, panelDir: join(dir, 'missing') });
    try {
      const r = await send(empty.port, '/', {});
      expect(r.status).toBe(503);
      expect(r.body).toContain('The control panel is not built: npm run build -w glob-node');
      expect((await send(empty.port, '/local/state', { headers: { [PANEL_SECRET_HEADER]: empty.secret } })).status).toBe(200);
    } finally {
      await empty.close();
    }
  });
});
