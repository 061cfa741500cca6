/**
 * One desktop app per user: `<data-dir>/desktop.lock` (mode 0600) holds the running app's pid, its panel's port and
 * secret. A second launch that finds a live first one answering on that port opens the first one's panel instead
 * and exits; a lock whose process is gone (or that does not answer) is replaced.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PANEL_SECRET_HEADER, panelUrl } from './panel-api';

export interface LockInfo {
  pid: number;
  port: number;
  secret: string;
}

export type Acquired = { kind: 'acquired'; release: () => Promise<void> } | { kind: 'running'; url: string; pid: number };

export interface SingleInstanceDeps {
  /** Whether a process of that id exists (injectable for tests). */
  isAlive?: (pid: number) => boolean;
  /** Whether the app on `port` answers with that secret. */
  answers?: (port: number, secret: string) => Promise<boolean>;
}

export const lockPath = (dataDir: string): string => join(dataDir, 'desktop.lock');

/** The address that opens a panel and signs the browser in. */

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A GET of the app's state with the secret: only the app that wrote the lock answers 200. */
export async function panelAnswers(port: number, secret: string): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/local/state`, {
      headers: { [PANEL_SECRET_HEADER]: secret },
      signal: AbortSignal.timeout(3_000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function parseLock(text: string): LockInfo | null {
  try {
    const o = JSON.parse(text) as Partial<LockInfo>;
    if (Number.isInteger(o.pid) && Number.isInteger(o.port) && typeof o.secret === 'string') return o as LockInfo;
  } catch {
    // Half written, or damaged.
  }
  return null;
}

/**
 * Takes the lock for this process (whose panel listens on `me.port`), or answers the running app's panel URL. The
 * lock is created exclusively, so of two launches at once only one wins; the other finds it and defers to it.
 */
export async function acquireInstance(dataDir: string, me: LockInfo, deps: SingleInstanceDeps = {}): Promise<Acquired> {
  const isAlive = deps.isAlive ?? processAlive;
  const answers = deps.answers ?? panelAnswers;
  const path = lockPath(dataDir);
  for (let tries = 0; tries < 5; tries++) {
    try {
      const file = await open(path, 'wx', 0o600);
      try {
        await file.writeFile(`${JSON.stringify(me)}\n`);
      } finally {
        await file.close();
      }
      return {
        kind: 'acquired',
        release: async () => {
          // Only our own lock: a later instance may have replaced a lock it judged stale.
          const now = parseLock(await readFile(path, 'utf8').catch(() => ''));
          if (now?.pid === me.pid && now.secret === me.secret) await rm(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null) continue;
    const other = parseLock(text);
    if (!other) {
      // Another launch may be writing it this very moment: look again before calling it stale.
      await sleep(200);
      if (parseLock(await readFile(path, 'utf8').catch(() => '')) === null) await rm(path, { force: true });
      continue;
    }
    if (isAlive(other.pid) && (await answers(other.port, other.secret))) {
      return { kind: 'running', url: panelUrl(other.port, other.secret), pid: other.pid };
    }
    await rm(path, { force: true });
  }
  throw new Error(`Could not take ${path}: delete it if no Glob Network app is running`);
}
