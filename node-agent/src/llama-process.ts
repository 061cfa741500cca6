/**
 * llama.cpp's own programs a pool member runs: `ggml-rpc-server` (a shard's layers) and `llama-server` (the
 * coordinator's model, driven over HTTP on loopback). They come from this package's llama-rpc.mjs, which builds them once
 * per llama.cpp version from the source node-llama-cpp ships, with GGML_RPC on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_DIR } from './options';

export const RPC_SERVER = 'ggml-rpc-server';
export const LLAMA_SERVER = 'llama-server';

/**
 * The directory holding llama.cpp's RPC build: `dir` when given, else the shared cache, built first when missing
 * (minutes, once per machine; the build's own progress lines say so while it runs). Found once per process.
 */
export function llamaBin(dir: string | undefined, log: (line: string) => void): Promise<string> {
  if (dir) {
    for (const t of [RPC_SERVER, LLAMA_SERVER]) if (!existsSync(join(dir, t))) return Promise.reject(new Error(`${t} is not in ${dir}`));
    return Promise.resolve(dir);
  }
  found ??= new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(PACKAGE_DIR, 'llama-rpc.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let last = '';
    let errors = '';
    child.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        // Its last line is the bin directory; the lines before it say that a build started and ended.
        if (/^Buil(ding|t) /.test(line)) log(line);
        last = line;
      }
    });
    child.stderr.on('data', (d: Buffer) => (errors = (errors + d.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(last.replace(/ \(\d+ s\)$/, ''))
        : reject(new Error(`Could not build llama.cpp with RPC (exit ${code}): ${errors.trim()}`)),
    );
  }).catch((err: unknown) => {
    found = null;
    throw err;
  });
  return found;
}
let found: Promise<string> | null = null;

/** A free TCP port on loopback (the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:port, or rejects when `signal` aborts. */
export async function waitForPort(port: number, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const open = await new Promise<boolean>((resolve) => {
      const c = createConnection({ host: '127.0.0.1', port });
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw signal.reason;
}

export interface Tied {
  child: ChildProcess;
  /** Why it exited, once it has. */
  exited: Promise<string>;
  /** Ends it (and waits until it has). */
  stop(): Promise<void>;
}

/**
 * Runs `bin` so that it ends with this process even when this one is killed outright: a shell holds the program and
 * kills it when our end of its stdin closes, which the kernel does for us on any exit (the shell keeps that stdin
 * as fd 3: a background command's own stdin would be /dev/null). Output goes to `onLine`.
 */
export function spawnTied(bin: string, args: string[], onLine: (line: string) => void): Tied {
  const child = spawn('sh', ['-c', 'exec 3<&0; "$@" </dev/null & p=$!; { cat <&3 >/dev/null; kill $p 2>/dev/null; } & wait $p', 'sh', bin, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let tail = '';
  const read = (chunk: Buffer) => {
    const text = tail + chunk.toString();
    const lines = text.split('\n');
    tail = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) onLine(l);
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, sig) => resolve(sig ? `killed by ${sig}` : `exited with code ${code}`));
    child.once('error', (err) => resolve(err.message));
  });
  return {
    child,
    exited,
    async stop() {
      child.stdin!.end();
      const done = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}
