import type { ChildProcess } from 'node:child_process';

/** Kills a test's child started with `detached: true` and everything it started (its process group), if still running. */
export function killGroup(child: ChildProcess | undefined): void {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}
