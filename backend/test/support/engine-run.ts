import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';

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

/**
 * For a test file: the generated tiny model (seed 1) written to a temporary directory and `request` run on it in one
 * engine-probe child before the tests; `resultOf` reads a run's result line, `streamed` the text its chunks carried.
 */
export function probeTinyModel<R extends ProbeLine>(request: object) {
  let dir: string;
  let probe: ProbeOutput;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tiny-probe-'));
    const model = join(dir, 'tiny.gguf');
    await writeTinyLlamaGguf(model, { seed: 1 });
    probe = await probeEngine(model, { threads: 1, ...request });
  }, 90_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    output: () => probe,
    resultOf: (run: number, g = 0): R => {
      const found = probe.lines.filter((l) => l.type === 'result' && l.run === run && l.g === g) as R[];
      expect(found).toHaveLength(1);
      return found[0]!;
    },
    streamed: (run: number, g = 0): string =>
      probe.lines
        .filter((l) => l.type === 'token' && l.run === run && l.g === g)
        .map((l) => String(l.text))
        .join(''),
  };
}
