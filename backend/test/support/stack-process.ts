import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestStack } from './app';

/** What every process of a test's platform shares with its stack: the database, the Redis prefix, the sealing key. */
export function stackProcessEnv(stack: TestStack): NodeJS.ProcessEnv {
  const c = stack.config;
  return {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: c.database.url,
    REDIS_URL: c.redis.url,
    REDIS_PREFIX: c.redis.prefix,
    // The key jobs are sealed under: the API's (each test process would otherwise make up its own).
    TWO_FACTOR_KEY: c.twoFactorKey.toString('hex'),
    MODELS_DIR: c.inference.modelsDir,
    SMTP_URL: '',
  };
}

/** A backend entry point (`src/worker.ts`, `src/main.ts`) run from source in a process of its own, its output kept. */
export function spawnSource(entry: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--conditions=glob-source', '-r', '@swc-node/register', entry], {
    cwd: join(__dirname, '..', '..'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}
