import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { LlamaEngine, type GenerateRequest, type GenerateResult } from '@glob/engine/llama-engine';
import { generateReply, type GenerationStep } from '@glob/engine/generation';
import { readGgufHeader, type GgufScalar } from '@glob/engine/gguf';

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

/** What a generation in a child engine gave: its result and the chunks it streamed, in order. */
export type ChildGeneration = GenerateResult & { chunks: string[] };

/** LlamaEngine's methods whose arguments and results are plain JSON: called in the child as they are, each answer a promise. */
type Callable =
  'load' | 'unload' | 'capacity' | 'contextSize' | 'countTokens' | 'countTextTokens' | 'tokenize' | 'tokenizePrompt' | 'recompute' | 'score';
type Remote = { [K in Callable]: LlamaEngine[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

/**
 * A LlamaEngine in a child process of its own (jest cannot load node-llama-cpp in-process), its methods called over
 * stdin/stdout as JSON: for tests that need the engine's own answers (a prompt's token ids, a budget's sequences)
 * rather than engine-probe's fixed report. Each call runs as it arrives, so one a test does not await (a load) overlaps
 * the next. `generate` streams into `chunks`; `reply` runs generation.ts's generateReply (stop sequences applied as
 * every generator applies them), `chunks` then being what it sent. A failed call rejects with the child's error
 * message; `close` disposes of the engine and ends the child (a test file's afterAll must call it).
 */
export interface ChildEngine extends Remote {
  generate(modelId: string, req: Omit<GenerateRequest, 'signal' | 'onToken'>): Promise<ChildGeneration>;
  reply(modelId: string, step: Omit<GenerationStep, 'signal'>): Promise<ChildGeneration>;
  /**
   * A GGUF file's metadata values under `keys` (null where absent), read in the child: the header reader imports
   * node-llama-cpp, which a jest worker is better off without.
   */
  ggufMetadata(path: string, keys: string[]): Promise<Record<string, GgufScalar | null>>;
  close(): Promise<void>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
}

export function childEngine(opts: { threads?: number } = {}): ChildEngine {
  const child = spawn(
    process.execPath,
    ['--conditions=glob-source', '-r', '@swc-node/register', '-e', `require('./test/support/engine-run').serveEngineCalls(${JSON.stringify(opts)})`],
    { cwd: BACKEND, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let stderr = '';
  let out = '';
  let next = 0;
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const text = out.slice(0, nl).trim();
      out = out.slice(nl + 1);
      if (!text.startsWith('{')) continue;
      const { id, result, error } = JSON.parse(text) as { id: number; result?: unknown; error?: string };
      const w = waiting.get(id);
      waiting.delete(id);
      if (error !== undefined) w?.reject(new Error(error));
      else w?.resolve(result);
    }
  });
  const closed = new Promise<void>((done) =>
    child.on('close', (code, signal) => {
      for (const w of waiting.values()) w.reject(new Error(`the engine child ended (${code ?? signal}): ${stderr}`));
      waiting.clear();
      done();
    }),
  );
  const call = (method: string, args: unknown[]) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      child.stdin!.write(`${JSON.stringify({ id, method, args })}\n`);
    });
  return new Proxy({} as ChildEngine, {
    get: (_, method: string) => {
      if (method === 'then') return undefined;
      if (method === 'stderr') return () => stderr;
      if (method === 'close')
        return async () => {
          child.stdin!.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await closed;
          clearTimeout(timer);
        };
      return (...args: unknown[]) => call(method, args);
    },
  });
}

/** The child's side of childEngine: reads calls from stdin until it ends, then disposes of the engine. */
export async function serveEngineCalls(opts: { threads?: number }): Promise<void> {
  const engine = await LlamaEngine.create({ threads: opts.threads ?? 1 });
  const methods: Record<string, (...args: never[]) => unknown> = {
    generate: async (modelId: string, req: GenerateRequest) => {
      const chunks: string[] = [];
      return { ...(await engine.generate(modelId, { ...req, onToken: (t) => chunks.push(t) })), chunks };
    },
    reply: async (modelId: string, step: GenerationStep) => {
      const chunks: string[] = [];
      // Every piece sent at once (batchMs 0): the chunks are what a client would have received.
      return {
        ...(await generateReply(
          (r) => engine.generate(modelId, r),
          step,
          (t) => chunks.push(t),
          0,
        )),
        chunks,
      };
    },
    ggufMetadata: async (path: string, keys: string[]) => {
      const { metadata } = await readGgufHeader(path);
      return Object.fromEntries(keys.map((k) => [k, metadata.get(k) ?? null]));
    },
  };
  const running = new Set<Promise<void>>();
  let input = '';
  process.stdin.on('data', (d: Buffer) => {
    input += d.toString();
    for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
      const line = input.slice(0, nl);
      input = input.slice(nl + 1);
      if (!line.trim()) continue;
      const { id, method, args } = JSON.parse(line) as { id: number; method: string; args: never[] };
      const call = (async () => {
        try {
          const fn = methods[method] ?? (engine as unknown as Record<string, (...a: never[]) => unknown>)[method]?.bind(engine);
          if (!fn) throw new Error(`no engine method ${method}`);
          const result = await fn(...args);
          process.stdout.write(`${JSON.stringify({ id, result: result ?? null })}\n`);
        } catch (err) {
          process.stdout.write(`${JSON.stringify({ id, error: `${(err as Error).name}: ${(err as Error).message}` })}\n`);
        }
      })();
      running.add(call);
      void call.finally(() => running.delete(call));
    }
  });
  await new Promise((done) => process.stdin.on('end', done));
  await Promise.all(running);
  await engine.dispose();
  process.stdout.write('', () => process.exit(0));
}
