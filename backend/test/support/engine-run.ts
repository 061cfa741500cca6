import { type ChildProcess, spawn } from 'node:child_process';
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

/** The served engine of this test file (engine-probe.ts --serve), started on first use and stopped after its tests. */
interface Served {
  child: ChildProcess;
  /** Requests sent and not yet ended, by id: the lines they printed so far. */
  waiting: Map<number, { lines: ProbeLine[]; done: (o: ProbeOutput) => void }>;
  stderr: string;
}
let served: Served | null = null;
let nextRequest = 0;

function servedEngine(): Served {
  if (served) return served;
  const child = spawn(process.execPath, ['--conditions=glob-source', '-r', '@swc-node/register', 'test/support/engine-probe.ts', '--serve'], {
    cwd: BACKEND,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const s: Served = { child, waiting: new Map(), stderr: '' };
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const text = out.slice(0, nl).trim();
      out = out.slice(nl + 1);
      if (!text.startsWith('{')) continue;
      const { id, ...line } = JSON.parse(text) as ProbeLine & { id: number };
      const w = s.waiting.get(id);
      if (!w) continue;
      if (line.type !== 'end') w.lines.push(line);
      else {
        s.waiting.delete(id);
        const failed = w.lines.some((l) => l.type === 'error');
        w.done({ lines: w.lines, code: failed ? 2 : 0, signal: null, stderr: s.stderr });
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (s.stderr += d.toString()));
  // A crash answers every waiting request with what it printed (as a probe child that died would).
  child.on('close', (code, signal) => {
    for (const w of s.waiting.values()) w.done({ lines: w.lines, code, signal, stderr: s.stderr });
    s.waiting.clear();
    if (served === s) served = null;
  });
  served = s;
  return s;
}

/** Stops this file's served engine (after its tests; a later call starts another). */
export async function stopServedEngine(): Promise<void> {
  const s = served;
  if (!s) return;
  served = null;
  const closed = new Promise((r) => s.child.once('close', r));
  s.child.stdin!.end();
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
  await closed;
  clearTimeout(timer);
}

// Support files are imported while a test file is collected, so this hook is the file's own.
if (typeof afterAll === 'function') afterAll(stopServedEngine);

/**
 * Runs `request` on `model` as probeEngine does, in this test file's one served engine: its start-up (a process,
 * node-llama-cpp, the model) is paid once, not per request. Requests run one after the other.
 */
export function runOnEngine(model: string, request: object): Promise<ProbeOutput> {
  const s = servedEngine();
  const id = ++nextRequest;
  return new Promise((done) => {
    s.waiting.set(id, { lines: [], done });
    s.child.stdin!.write(`${JSON.stringify({ id, model, request })}\n`);
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
