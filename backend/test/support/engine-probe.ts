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
 *
 * Request: { threads?, contextSize?, countTokens?: ChatTurn[][], generate?: Run | Run[], benchmark?: number,
 *   capacities?: LoadOptions['sequences'][], recompute?: Array<{ messages, maxTokens, tokens }> } — each capacity loads the model again with those sequences, then unloads it
 * where Run = { messages, maxTokens, temperature, topP, seed?, abortAfterChunks?, parallel? }. Runs execute
 * one after the other (one engine start-up serves them all); `parallel` starts that many copies of a run
 * at once (`g` tells them apart); `abortAfterChunks` aborts the signal once that many chunks arrived.
 */
import { LlamaEngine, type ChatTurn, type GenerateRequest, type LoadOptions } from '@glob/engine/llama-engine';
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
  recompute?: Array<{ messages: ChatTurn[]; maxTokens: number; tokens: number[]; committed?: Step[]; claim?: ReplyClaim }>;
  tokenize?: string[];
  embed?: string[];
}

const print = (o: object): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};

async function generateOnce(engine: LlamaEngine, spec: ProbeRun, run: number, g: number): Promise<void> {
  const { abortAfterChunks, parallel: _parallel, ...req } = spec;
  const ctrl = new AbortController();
  let chunks = 0;
  let abortedAt: number | null = null;
  const started = performance.now();
  const result = await engine.generate('probe', {
    ...req,
    signal: ctrl.signal,
    onToken: (text) => {
      print({ type: 'token', run, g, i: chunks, text, ms: Math.round(performance.now() - started) });
      chunks++;
      if (abortAfterChunks !== undefined && chunks === abortAfterChunks) {
        abortedAt = performance.now();
        ctrl.abort();
      }
    },
  });
  const abortLatencyMs = abortedAt === null ? null : Math.round(performance.now() - abortedAt);
  print({ type: 'result', run, g, ...result, abortLatencyMs });
}

async function main(): Promise<void> {
  const [modelPath, json] = process.argv.slice(2);
  if (!modelPath) throw new Error('usage: engine-probe.ts <model.gguf> [json request]');
  const req = JSON.parse(json ?? '{}') as ProbeRequest;
  const engine = await LlamaEngine.create({ threads: req.threads ?? 1 });
  try {
    const t0 = performance.now();
    await engine.load('probe', modelPath, req.contextSize ? { contextSize: req.contextSize } : {});
    print({ type: 'loaded', contextSize: engine.contextSize('probe'), loadMs: Math.round(performance.now() - t0) });

    if (req.countTokens) {
      print({ type: 'count', counts: req.countTokens.map((m) => engine.countTokens('probe', m)) });
    }
    const runs = req.generate === undefined ? [] : Array.isArray(req.generate) ? req.generate : [req.generate];
    for (const [run, spec] of runs.entries()) {
      await Promise.all(Array.from({ length: spec.parallel ?? 1 }, (_, g) => generateOnce(engine, spec, run, g)));
    }
    if (req.benchmark) {
      print({ type: 'benchmark', ...(await engine.benchmark('probe', req.benchmark)) });
    }
    if (req.tokenize) print({ type: 'tokens', tokens: req.tokenize.map((t) => engine.tokenize('probe', t)) });
    if (req.embed) print({ type: 'embeddings', vectors: (await engine.embed('probe', req.embed)).map((v) => Array.from(v)) });
    for (const [i, r] of (req.recompute ?? []).entries()) {
      const t = performance.now();
      const recomputed = await engine.recompute('probe', r, r.tokens, VERIFY_TOP);
      const ms = performance.now() - t;
      const verdict = r.claim && r.committed ? verifyReply(r.committed, recomputed, r.claim) : undefined;
      print({ type: 'recomputed', i, ...recomputed, ms, ...(verdict ? { verdict } : {}) });
    }
    for (const sequences of req.capacities ?? []) {
      await engine.load('sized', modelPath, { ...(req.contextSize ? { contextSize: req.contextSize } : {}), sequences });
      print({ type: 'capacity', ...engine.capacity('sized') });
      await engine.unload('sized');
    }
  } finally {
    await engine.dispose();
  }
}

main().then(
  // Exits once stdout is written out: a pipe takes long lines (a recomputation's candidates) asynchronously.
  () => process.stdout.write('', () => process.exit(0)),
  (err: unknown) => {
    const e = err as { name?: string; code?: string; message?: string };
    print({ type: 'error', name: e.name ?? 'Error', code: e.code ?? null, message: e.message ?? String(err) });
    process.exit(2);
  },
);
