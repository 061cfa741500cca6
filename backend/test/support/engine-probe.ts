/**
 * Runs LlamaEngine in its own process for tests (jest cannot import ESM-only node-llama-cpp in-process,
 * and a native abort must not take the test runner down). Prints one JSON object per line:
 *   {"type":"loaded","contextSize":…,"loadMs":…}
 *   {"type":"count","counts":[…]}                                when `countTokens` is given
 *   {"type":"token","run":0,"g":0,"i":0,"text":"…","ms":…}       per streamed chunk
 *   {"type":"result","run":0,"g":0,…GenerateResult,"abortLatencyMs":…}   at the end of each generation
 *   {"type":"benchmark","tokensPerSecond":…}                     when `benchmark` is given
 *   {"type":"capacity","sequences":…,"contextSize":…,"kvBytesPerSequence":…}   per entry of `capacities`
 *   {"type":"recomputed","i":0,…Recomputation}                    per entry of `recompute` (a verifier's pass)
 *   {"type":"tokens","tokens":[[…],…]}                          the token ids of each text of `tokenize`
 *   {"type":"embeddings","vectors":[[…],…]}                     the model's embedding of each text of `embed`
 *   {"type":"error","name":"GgufError","code":"…","message":"…"}  then exit code 2, on failure
 *
 *   node --conditions=glob-source -r @swc-node/register test/support/engine-probe.ts <model.gguf> '<json request>'
 *   node --conditions=glob-source -r @swc-node/register test/support/engine-probe.ts --serve   (see serve())
 *
 * Request: { threads?, contextSize?, countTokens?: ChatTurn[][], generate?: Run | Run[], benchmark?: number,
 *   capacities?: LoadOptions['sequences'][], recompute?: Array<{ messages | prompt, sampling: { max_tokens }, tokens,
 *   committed?, claim? }> } — each capacity loads the model again with those sequences, then unloads it
 * where Run = { messages | prompt, sampling: Sampling, commit?, abortAfterChunks?, parallel? } (`sampling` in the
 * spec's casing: { temperature, max_tokens, top_p, seed?, stop?, json_schema?, logprobs? }). Runs execute
 * one after the other (one engine start-up serves them all); `parallel` starts that many copies of a run
 * at once (`g` tells them apart); `abortAfterChunks` aborts the signal once that many chunks arrived.
 */
import { LlamaEngine, type ChatTurn, type GenerateRequest, type LoadOptions, type PromptRequest } from '@glob/engine/llama-engine';
import { VERIFY_TOP, verifyReply, type ReplyClaim } from '@glob/engine/verification';
import type { Step } from '@glob/engine/commitment';

interface ProbeRun extends Omit<GenerateRequest, 'signal' | 'onToken'> {
  abortAfterChunks?: number;
  parallel?: number;
}
interface ProbeRequest {
  threads?: number;
  contextSize?: number;
  countTokens?: ChatTurn[][];
  generate?: ProbeRun | ProbeRun[];
  benchmark?: number;
  capacities?: Array<LoadOptions['sequences']>;
  /** With `claim` and `committed`, the verdict on it too (verifyReply), and how long the pass took. */
  recompute?: Array<PromptRequest & { tokens: number[]; committed?: Step[]; claim?: ReplyClaim }>;
  tokenize?: string[];
  embed?: string[];
}

const print = (o: object): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};

async function generateOnce(engine: LlamaEngine, name: string, spec: ProbeRun, run: number, g: number, out: (o: object) => void): Promise<void> {
  const { abortAfterChunks, parallel: _parallel, ...req } = spec;
  const ctrl = new AbortController();
  let chunks = 0;
  let abortedAt: number | null = null;
  const started = performance.now();
  const result = await engine.generate(name, {
    ...req,
    signal: ctrl.signal,
    onToken: (text) => {
      out({ type: 'token', run, g, i: chunks, text, ms: Math.round(performance.now() - started) });
      chunks++;
      if (abortAfterChunks !== undefined && chunks === abortAfterChunks) {
        abortedAt = performance.now();
        ctrl.abort();
      }
    },
  });
  const abortLatencyMs = abortedAt === null ? null : Math.round(performance.now() - abortedAt);
  out({ type: 'result', run, g, ...result, abortLatencyMs });
}

/** Runs one request on `engine` with the model of `modelPath` loaded as `name`, printing its lines through `out`. */
async function handle(engine: LlamaEngine, name: string, modelPath: string, req: ProbeRequest, out: (o: object) => void): Promise<void> {
  const t0 = performance.now();
  await engine.load(name, modelPath, req.contextSize ? { contextSize: req.contextSize } : {});
  out({ type: 'loaded', contextSize: engine.contextSize(name), loadMs: Math.round(performance.now() - t0) });

  if (req.countTokens) {
    out({ type: 'count', counts: req.countTokens.map((m) => engine.countTokens(name, m)) });
  }
  const runs = req.generate === undefined ? [] : Array.isArray(req.generate) ? req.generate : [req.generate];
  for (const [run, spec] of runs.entries()) {
    await Promise.all(Array.from({ length: spec.parallel ?? 1 }, (_, g) => generateOnce(engine, name, spec, run, g, out)));
  }
  if (req.benchmark) {
    out({ type: 'benchmark', ...(await engine.benchmark(name, req.benchmark)) });
  }
  if (req.tokenize) out({ type: 'tokens', tokens: req.tokenize.map((t) => engine.tokenize(name, t)) });
  if (req.embed) out({ type: 'embeddings', vectors: (await engine.embed(name, req.embed)).map((v) => Array.from(v)) });
  for (const [i, r] of (req.recompute ?? []).entries()) {
    const t = performance.now();
    const recomputed = await engine.recompute(name, r, r.tokens, VERIFY_TOP);
    const ms = performance.now() - t;
    const verdict = r.claim && r.committed ? verifyReply(r.committed, recomputed, r.claim) : undefined;
    out({ type: 'recomputed', i, ...recomputed, ms, ...(verdict ? { verdict } : {}) });
  }
  for (const sequences of req.capacities ?? []) {
    await engine.load('sized', modelPath, { ...(req.contextSize ? { contextSize: req.contextSize } : {}), sequences });
    out({ type: 'capacity', ...engine.capacity('sized') });
    await engine.unload('sized');
  }
}

const errorLine = (err: unknown) => {
  const e = err as { name?: string; code?: string; message?: string };
  return { type: 'error', name: e.name ?? 'Error', code: e.code ?? null, message: e.message ?? String(err) };
};

/**
 * Served mode (`--serve`): one engine for many requests, so a test file pays the engine's start-up once. Each stdin
 * line is `{"id":…,"model":…,"request":{…}}`; its output lines carry that id and end with `{"type":"end","id":…}`.
 * Requests run one at a time, in order; each model file stays loaded (per context size) for the next.
 */
async function serve(): Promise<void> {
  const engine = await LlamaEngine.create({ threads: 1 });
  const loaded = new Map<string, string>();
  let queue = Promise.resolve();
  let input = '';
  process.stdin.on('data', (d: Buffer) => {
    input += d.toString();
    for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
      const line = input.slice(0, nl);
      input = input.slice(nl + 1);
      if (!line.trim()) continue;
      const { id, model, request } = JSON.parse(line) as { id: number; model: string; request: ProbeRequest };
      queue = queue.then(async () => {
        const out = (o: object) => print({ ...o, id });
        const key = `${model}|${request.contextSize ?? ''}`;
        if (!loaded.has(key)) loaded.set(key, `m${loaded.size}`);
        await handle(engine, loaded.get(key)!, model, request, out).catch((err: unknown) => out(errorLine(err)));
        out({ type: 'end' });
      });
    }
  });
  await new Promise((done) => process.stdin.on('end', done));
  await queue;
  await engine.dispose();
}

async function main(): Promise<void> {
  const [modelPath, json] = process.argv.slice(2);
  if (modelPath === '--serve') return serve();
  if (!modelPath) throw new Error('usage: engine-probe.ts <model.gguf> [json request] | --serve');
  const engine = await LlamaEngine.create({ threads: (JSON.parse(json ?? '{}') as ProbeRequest).threads ?? 1 });
  try {
    await handle(engine, 'probe', modelPath, JSON.parse(json ?? '{}') as ProbeRequest, print);
  } finally {
    await engine.dispose();
  }
}

main().then(
  // Exits once stdout is written out: a pipe takes long lines (a recomputation's candidates) asynchronously.
  () => process.stdout.write('', () => process.exit(0)),
  (err: unknown) => {
    print(errorLine(err));
    process.exit(2);
  },
);
