import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PanelServer, startPanelServer } from '../src/desktop/panel-server';
import { acquireInstance, lockPath } from '../src/desktop/single-instance';
import { panelStateFixture } from './desktop-fixtures';

describe('one desktop app per user', () => {
  let dir: string;
  let first: PanelServer;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-lock-'));
    const state = panelStateFixture();
    first = await startPanelServer({
      backend: { state: () => state } as never,
      panelDir: join(dir, 'panel'),
    });
  });
  afterEach(async () => {
    await first.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the first takes the lock (0600, its pid, port and secret); a second finds it live and gets its panel URL', async () => {
    const a = await acquireInstance(dir, { pid: process.pid, port: first.port, secret: first.secret });
    expect(a.kind).toBe('acquired');
    expect((await stat(lockPath(dir))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toEqual({ pid: process.pid, port: first.port, secret: first.secret });

    // Another process of this user (its own pid and port); the first one answers on its port with its secret.
    const b = await acquireInstance(dir, { pid: process.pid + 1, port: 1, secret: 'x' });
    expect(b).toEqual({ kind: 'running', url: first.url, pid: process.pid });

    if (a.kind === 'acquired') await a.release();
    await expect(stat(lockPath(dir))).rejects.toThrow();
  });

  it('a stale lock (its process gone, or not answering) is replaced', async () => {
    await writeFile(lockPath(dir), JSON.stringify({ pid: 999_999_999, port: first.port, secret: first.secret }));
    const a = await acquireInstance(dir, { pid: process.pid, port: 2, secret: 's' }, { isAlive: () => false });
    expect(a.kind).toBe('acquired');
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: process.pid, port: 2 });

    // A live pid (reused by another program) whose port does not answer with the secret.
    const b = await acquireInstance(dir, { pid: process.pid + 1, port: 3, secret: 't' });
    expect(b.kind).toBe('acquired');
    // The first one's release leaves the newer lock alone.
    if (a.kind === 'acquired') await a.release();
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ port: 3 });
  });

  it('a damaged lock is replaced', async () => {
    await writeFile(lockPath(dir), '{"pid":');
    expect((await acquireInstance(dir, { pid: process.pid, port: 4, secret: 'u' })).kind).toBe('acquired');
  });
});
