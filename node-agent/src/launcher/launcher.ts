/**
 * The installed app's launcher: it starts the newest good version of the app (the installed bundle, or an update the
 * app downloaded and verified into <home>/updates/versions/) and watches it start. A version that exits or hangs
 * before it runs is recorded as failed and the launcher falls back to the next one, so a broken update never leaves a
 * computer without its app. The app asks for a restart (exit code RESTART_FOR_UPDATE) to apply an update.
 */
import { type ChildProcess, spawn as nodeSpawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { rcompare } from 'semver';
import {
  appScript,
  type Bundle,
  failedVersions,
  LAUNCHER_ENV,
  type LauncherHandoff,
  launcherStatePath,
  readBundle,
  RESTART_FOR_UPDATE,
  runtimePath,
  versionsDir,
} from './bundle';

/** How long a version has to reach its running state (its panel serving) before it counts as failed. */
export const START_TIMEOUT_MS = 120_000;

export interface LauncherOptions {
  installed: Bundle;
  updatesDir: string;
  /** The app's arguments (`desktop …`). */
  args: string[];
  /** How the installed app is started (for the start at login). */
  command: string[];
  log: (line: string) => void;
  spawn?: (file: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess;
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** How the start at login runs the installed app again: its own launcher, never a path inside an update. */
export function installedCommand(b: Bundle): string[] {
  if (b.platform === 'windows') return ['wscript.exe', join(b.root, 'GlobNetwork.vbs')];
  // Contents/Resources → Contents/MacOS/GlobNetwork
  if (b.platform === 'macos') return [join(b.root, '..', 'MacOS', 'GlobNetwork')];
  return [join(b.root, 'bin', 'glob-network')];
}

/** The downloaded updates that are whole bundles of this platform and architecture. */
export function updateBundles(updatesDir: string, installed: Bundle): Bundle[] {
  let names: string[];
  try {
    names = readdirSync(versionsDir(updatesDir));
  } catch {
    return [];
  }
  return names
    .map((name) => readBundle(join(versionsDir(updatesDir), name)))
    .filter((b): b is Bundle => b !== null && b.platform === installed.platform && b.arch === installed.arch && basename(b.root) === b.version);
}

/**
 * The versions to try, best first: the newest of the installed bundle and the updates, leaving out those that failed.
 * The installed bundle is always there, last resort or newer (a newer package installed over an older update wins).
 */
export function candidates(installed: Bundle, updatesDir: string): Bundle[] {
  const failed = new Set(failedVersions(updatesDir));
  const updates = updateBundles(updatesDir, installed).filter((b) => !failed.has(b.version) && b.version !== installed.version);
  return [installed, ...updates].sort((a, b) => rcompare(a.version, b.version) || (a === installed ? -1 : 1));
}

function markFailed(updatesDir: string, version: string): void {
  const failed = [...new Set([...failedVersions(updatesDir), version])];
  mkdirSync(updatesDir, { recursive: true });
  const path = launcherStatePath(updatesDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ failed }, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/**
 * After `running` started: the updates other than it and the best one to fall back to are removed (the installed bundle
 * is never touched), as are failed ones.
 */
export function prune(updatesDir: string, installed: Bundle, running: Bundle): string[] {
  const keep = new Set([
    running.root,
    ...candidates(installed, updatesDir)
      .filter((b) => b.root !== running.root)
      .slice(0, 1)
      .map((b) => b.root),
  ]);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(versionsDir(updatesDir));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = join(versionsDir(updatesDir), name);
    // Half-extracted downloads (.staging-*) belong to a running updater; it cleans them itself.
    if (name.startsWith('.') || keep.has(dir)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

type Outcome = { kind: 'exit'; code: number; started: boolean } | { kind: 'timeout' };

function watch(child: ChildProcess, startedFile: string, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let started = false;
    const poll = setInterval(() => {
      if (!started && existsSync(startedFile)) {
        started = true;
        clearTimeout(deadline);
      }
    }, 200);
    const deadline = setTimeout(() => {
      if (started) return;
      clearInterval(poll);
      resolve({ kind: 'timeout' });
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(deadline);
      started ||= existsSync(startedFile);
      resolve({ kind: 'exit', code: code ?? (signal === 'SIGINT' ? 130 : 1), started });
    });
  });
}

/** Runs the app until it ends for good; resolves with its exit code. */
export async function runLauncher(o: LauncherOptions): Promise<number> {
  const spawn =
    o.spawn ?? ((file: string, args: string[], env: NodeJS.ProcessEnv) => nodeSpawn(file, args, { stdio: 'inherit', env, windowsHide: true }));
  let current: ChildProcess | null = null;
  const forward = (signal: NodeJS.Signals) => () => current?.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    for (;;) {
      const bundle = candidates(o.installed, o.updatesDir)[0]!;
      const startedFile = join(o.updatesDir, `started-${process.pid}`);
      mkdirSync(o.updatesDir, { recursive: true });
      rmSync(startedFile, { force: true });
      const handoff: LauncherHandoff = { command: o.command, started_file: startedFile, updates_dir: o.updatesDir, bundle: bundle.root };
      o.log(`Starting Glob Network ${bundle.version}${bundle.root === o.installed.root ? '' : ' (updated)'}`);
      current = spawn(runtimePath(bundle.root, bundle.platform), [appScript(bundle.root), ...o.args], {
        ...(o.env ?? process.env),
        [LAUNCHER_ENV]: JSON.stringify(handoff),
      });
      const outcome = await watch(current, startedFile, o.startTimeoutMs ?? START_TIMEOUT_MS);
      if (outcome.kind === 'timeout') {
        current.kill('SIGKILL');
        await new Promise((r) => current!.once('exit', r));
      }
      rmSync(startedFile, { force: true });
      const started = outcome.kind === 'exit' && outcome.started;
      if (started && bundle.root !== o.installed.root) {
        const removed = prune(o.updatesDir, o.installed, bundle);
        if (removed.length) o.log(`Removed older versions: ${removed.join(', ')}`);
      }
      if (outcome.kind === 'exit' && outcome.code === RESTART_FOR_UPDATE) {
        o.log('Restarting to apply the update');
        continue;
      }
      if (started) return outcome.code;
      // Ended before it ran: a clean exit is its own (--help, another instance already running); anything else is a
      // version that cannot start here.
      if (outcome.kind === 'exit' && outcome.code === 0) return 0;
      if (bundle.root === o.installed.root) return outcome.kind === 'exit' ? outcome.code : 1;
      markFailed(o.updatesDir, bundle.version);
      const why =
        outcome.kind === 'timeout'
          ? `did not start within ${Math.round((o.startTimeoutMs ?? START_TIMEOUT_MS) / 1000)} s`
          : `exited with ${outcome.code} before it started`;
      o.log(`Version ${bundle.version} ${why}: going back to ${candidates(o.installed, o.updatesDir)[0]!.version}`);
    }
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
