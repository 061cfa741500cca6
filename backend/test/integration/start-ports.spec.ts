import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const ROOT = resolve(__dirname, '..', '..', '..');

/** A port this test listens on (every interface, as the platform's processes do). */
function hold(): Promise<{ server: Server; port: number }> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, () => done({ server, port: (server.address() as { port: number }).port }));
  });
}

/** Runs one of the start scripts to its end: exit status and what it printed. */
function run(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', script), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output: stripVTControlCharacters(output) });
    });
  });
}

/**
 * `make serve` and `make dev` on a machine where another program (another copy of the platform) holds a port they
 * need: they stop before starting anything, with one line naming the port, what holds it and the setting that moves
 * it, rather than a child failing with EADDRINUSE later (or being restarted forever).
 */
describe('the start scripts check their ports first', () => {
  const held: Server[] = [];
  afterAll(() => Promise.all(held.map((s) => new Promise((r) => s.close(r)))));
  // Nothing is reached: the check comes before the database, Redis and the builds.
  const elsewhere = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };

  it('make serve: the API’s port taken', async () => {
    const { server, port } = await hold();
    held.push(server);
    const free = await hold();
    free.server.close();
    const { code, output } = await run('serve.mjs', ['--no-build'], { ...elsewhere, PORT: String(port), WORKER_PORT: String(free.port) });
    expect(code).toBe(1);
    expect(output.trim()).toBe(
      `[glob] Port ${port} (the API and web app) is already in use by node (pid ${process.pid}): stop that, or set PORT to another port.`,
    );
  });

  it('make dev: the worker’s metrics port taken (9464 by default), after the API’s and the web app’s are found free', async () => {
    const { server, port } = await hold();
    held.push(server);
    const [api, web] = [await hold(), await hold()];
    api.server.close();
    web.server.close();
    const { code, output } = await run('dev.mjs', [], {
      ...elsewhere,
      PORT: String(api.port),
      WEB_PORT: String(web.port),
      WORKER_PORT: String(port),
    });
    expect(code).toBe(1);
    expect(output.trim()).toBe(
      `[glob] Port ${port} (the worker's metrics) is already in use by node (pid ${process.pid}): stop that, or set WORKER_PORT to another port.`,
    );
  });
});
