import { type ChildProcess, spawn } from 'node:child_process';
import { spawnSource, stackProcessEnv } from './stack-process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../node-agent/src/llama-process';
import type { TestStack } from './app';

/** The bearer token of the API processes' GET /metrics. */
export const API_METRICS_TOKEN = 'multi-process-metrics-token';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Ends a child process (SIGTERM, then SIGKILL after `ms`) and waits for it. */
function end(child: ChildProcess, ms = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Another API process (src/main.ts, as `make serve` runs it) on the stack's database, Redis prefix and secrets, so it
 * serves the same users, streams and queues as the stack's own. Resolves once it answers its health check.
 */
export async function startApiProcess(stack: TestStack, name: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const c = stack.config;
  const port = await freePort();
  const { child, output } = spawnSource('src/main.ts', {
    ...stackProcessEnv(stack),
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_POOL_SIZE: '4',
    JWT_ACCESS_SECRET: c.jwt.accessSecret,
    JWT_REFRESH_SECRET: c.jwt.refreshSecret,
    METRICS_TOKEN: API_METRICS_TOKEN,
    TRUST_PROXY: 'loopback',
    PAYMENTS_TEST_MODE: 'true',
    WORKER_MODELS: 'none',
    ...(c.inference.catalogPath ? { MODEL_CATALOG: c.inference.catalogPath } : {}),
    NODE_AGENT_PACKAGE: '/nonexistent/glob-node-0.0.0.tgz',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`API process ${name} did not start:\n${output()}`);
    }
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, output, stop: () => end(child) };
}

export interface Proxy {
  url: string;
  stop(): Promise<void>;
}

/**
 * nginx (Debian's) in front of `upstreams`, round robin, as an operator would put it: the client's address forwarded,
 * event streams and node uploads passed through unbuffered.
 */
export async function startNginx(upstreams: string[]): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'glob-nginx-'));
  const port = await freePort();
  // The configuration `make serve API_PROCESSES=n` runs nginx with.
  const conf = readFileSync(join(__dirname, '..', '..', '..', 'ops', 'nginx', 'api-proxy.conf'), 'utf8')
    .replaceAll('{{DIR}}', dir)
    .replaceAll('{{LISTEN}}', `127.0.0.1:${port}`)
    .replaceAll('{{UPSTREAMS}}', upstreams.map((u) => `    server ${u.replace(/^http:\/\//, '')};`).join('\n'));
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 100) throw new Error(`nginx did not start:\n${out}`);
    try {
      await fetch(`${url}/api/health`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    stop: async () => {
      await end(child, 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
