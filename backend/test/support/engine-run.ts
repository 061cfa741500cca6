import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BACKEND = resolve(__dirname, '..', '..');

export type ProbeLine = Record<string, unknown> & { type: string };

/** What an engine-probe child printed (its JSON lines) and how it ended. */
export interface ProbeOutput {
  lines: ProbeLine[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs LlamaEngine on `model` in a child process (test/support/engine-probe.ts) with `request`; killed after 80 s. */
export function probeEngine(model: string, request: object): Promise<ProbeOutput> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['--conditions=glob-source', '-r', '@swc-node/register', 'test/support/engine-probe.ts', model, JSON.stringify(request)],
      {
        cwd: BACKEND,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l) as ProbeLine);
      done({ lines, code, signal, stderr });
    });
  });
}
