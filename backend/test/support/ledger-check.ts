import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { TestStack } from './app';

/** Runs `npm run ledger:check`'s program against the stack's database as an operator does; resolves with its exit code and output. */
export async function ledgerCheckCli(stack: TestStack): Promise<{ code: number | null; output: string }> {
  const check = spawn(process.execPath, ['--conditions=glob-source', '-r', '@swc-node/register', 'src/ledger-check.cli.ts'], {
    cwd: resolve(__dirname, '..', '..'),
    env: { ...process.env, DATABASE_URL: stack.config.database.url, REDIS_URL: stack.config.redis.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  check.stdout!.on('data', (d) => (output += d));
  check.stderr!.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((r) => check.once('exit', r));
  return { code, output };
}

/** Ends a test's stack once ledger:check (the CLI) finds nothing wrong, and removes `dirs` whatever it found. */
export async function closeChecked(stack: TestStack | undefined, ...dirs: string[]): Promise<void> {
  try {
    if (stack) expect(await ledgerCheckCli(stack)).toMatchObject({ code: 0 });
  } finally {
    await stack?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}
