/**
 * A pool coordinator's model: llama.cpp's own server, on loopback, holding the first layers itself and reaching the
 * other members' layers as RPC devices. It is driven over HTTP rather than through node-llama-cpp because the addon
 * node-llama-cpp ships is built without GGML_RPC; llama-server from the same llama.cpp source has it, and its
 * /completion streams a reply and stops when the request is closed.
 *
 * The prompt is not llama-server's to build: it is handed token ids, made from the model's vocabulary with
 * node-llama-cpp exactly as the engine makes them (@glob/engine/prompt-tokens), so a pool's prompt, its count and its
 * spot check's replay are the engine's and the platform's by construction. llama-server's own route (/apply-template,
 * then /tokenize with special tokens parsed) turns a turn's text that spells a control token into that token (a user's
 * `<|im_end|>\n<|im_start|>system` would end their turn and open a system one), and renders with a Jinja engine of
 * its own, which agrees with node-llama-cpp's only as far as both implement a template alike.
 */
import { createParser } from 'eventsource-parser';
import { join } from 'node:path';
import type { GenerateRequest, GenerateResult } from '@glob/engine/llama-engine';
import { COMMIT_TOP, type Step } from '@glob/engine/commitment';
import { PromptTokenizer } from '@glob/engine/prompt-tokens';
import { llamaServerOptions } from '@glob/engine/sampling';
import { boundNumberRules } from '@glob/engine/json-grammar';
import { JsonSchemaGbnf } from '@glob/engine/json-schema-gbnf';
import { framedGrammar } from '@glob/engine/tool-format';
import { alignLogprobs, clampLogprob, cutLogprobs, type ScoredToken, type TokenLogprob } from '@glob/engine/logprobs';
import { freePort, LLAMA_SERVER, spawnTied, type Tied, waitForPort } from './llama-process';

/**
 * Replies a pool's coordinator serves at once: llama-server's parallel slots, batched together (continuous batching)
 * over one KV cache they share, sized for two full-length replies, so memory stays near one reply's while short
 * replies run four at once.
 */
export const POOL_SLOTS = 4;

export interface LlamaServerSplit {
  /** The model's GGUF file (the first part of a split file). */
  modelPath: string;
  threads: number;
  contextSize: number;
  /** The RPC devices in layer order (loopback ends of the pool's tunnels). */
  rpc: string[];
  /** Layers per member, coordinator first, then one per RPC device. */
  layers: number[];
}

/**
 * llama.cpp places the first (layers + 1 − n_gpu_layers) layers on the CPU, here the coordinator's, and splits the
 * rest and the output layer across the devices in proportion to --tensor-split: whole layer counts, with the output
 * layer counted on the last device, place exactly the planned layers on each.
 */
export function splitArgs(layers: number[]): string[] {
  const [own = 0, ...shards] = layers;
  const total = layers.reduce((a, b) => a + b, 0);
  const split = shards.map((n, i) => (i === shards.length - 1 ? n + 1 : n));
  return ['-ngl', String(total + 1 - own), '--tensor-split', split.join(',')];
}

/**
 * llama-server can close an idle keep-alive connection just as the next request goes out on it (seen right after a
 * streamed reply ends): that request never reached it, so it is sent once more on a fresh connection.
 */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const stale = (err as { cause?: { code?: string } }).cause?.code === 'UND_ERR_SOCKET';
    if (!stale || init.signal?.aborted) throw err;
    return fetch(url, init);
  }
}

/** A token's entry in llama-server's `completion_probabilities` (pre-sampling: natural-log probabilities). */
interface ServerTokenProb {
  id: number;
  /** The token's text cut before an unfinished character: `bytes` is the whole of it. */
  token: string;
  bytes: number[];
  logprob: number | null;
  top_logprobs?: Array<{ id: number; token: string; bytes: number[]; logprob: number | null }>;
}

interface CompletionChunk {
  content?: string;
  completion_probabilities?: ServerTokenProb[];
  tokens?: number[];
  stop?: boolean;
  stop_type?: 'eos' | 'limit' | 'word' | 'none';
  tokens_predicted?: number;
  tokens_evaluated?: number;
}

export class LlamaServer {
  /** Writes framed grammars (see framedGrammar) on a thread of its own, started on first use. */
  private readonly gbnf = new JsonSchemaGbnf();

  private constructor(
    private readonly proc: Tied,
    private readonly base: string,
    private readonly tokenizer: PromptTokenizer,
  ) {}

  /**
   * Starts llama-server with the split and waits until the model is loaded, the model's vocabulary loading meanwhile;
   * rejects if either fails (llama-server exiting first among them).
   */
  static async start(bin: string, split: LlamaServerSplit, log: (line: string) => void): Promise<LlamaServer> {
    const port = await freePort();
    const vocabulary = PromptTokenizer.load(split.modelPath);
    // Awaited once llama-server is up, or disposed if it fails: a rejection meanwhile is not left unhandled.
    vocabulary.catch(() => undefined);
    const args = [
      ...['-m', split.modelPath, '--host', '127.0.0.1', '--port', String(port), '--no-webui', '-np', String(POOL_SLOTS), '--kv-unified'],
      ...['-t', String(split.threads), '-c', String(split.contextSize * 2), '--fit', 'off'],
      ...(split.rpc.length ? ['--rpc', split.rpc.join(','), ...splitArgs(split.layers)] : []),
    ];
    const lines: string[] = [];
    const proc = spawnTied(join(bin, LLAMA_SERVER), args, (l) => {
      lines.push(l);
      if (lines.length > 40) lines.shift();
    });
    const base = `http://127.0.0.1:${port}`;
    const ready = new AbortController();
    const exited = proc.exited.then((why) => {
      ready.abort(new Error(`llama-server ${why}: ${lines.slice(-5).join(' | ')}`));
    });
    try {
      await waitForPort(port, ready.signal);
      while (!ready.signal.aborted) {
        const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        if (res?.ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (ready.signal.aborted) throw ready.signal.reason;
    } catch (err) {
      await proc.stop();
      await exited;
      await (await vocabulary.catch(() => null))?.dispose();
      log(`llama-server did not start: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    try {
      return new LlamaServer(proc, base, await vocabulary);
    } catch (err) {
      await proc.stop();
      log(`Could not read the model's vocabulary: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }

  /** Resolves with the reason once the server has exited (a member's RPC server gone aborts it). */
  get exited(): Promise<string> {
    return this.proc.exited;
  }

  async stop(): Promise<void> {
    await this.proc.stop();
    await this.tokenizer.dispose();
    await this.gbnf.close();
  }

  /**
   * A framed JSON schema's grammar (a family's tool call), written as the engine writes it: llama-server's own
   * `json_schema` cannot say what surrounds the JSON. Undefined for every other sampling.
   */
  private async framedGrammar(s: GenerateRequest['sampling']): Promise<string | undefined> {
    if (!s.json_schema || !s.json_frame) return undefined;
    const framed = framedGrammar(boundNumberRules(await this.gbnf.text(s.json_schema)), s.json_frame);
    if (framed === null) throw new Error('the JSON-schema grammar is not written as engine/src/tool-format.ts expects');
    return framed;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // The prompt's tokens as the engine counts them (a raw prompt's text alone) and as it evaluates them (a raw prompt
    // after the model's BOS when it prepends one; chat turns as the chat template formats them).
    const raw = req.prompt;
    const prompt = raw !== undefined ? this.tokenizer.text(raw) : this.tokenizer.chat(req.messages ?? []);
    const evaluated = raw !== undefined ? this.tokenizer.raw(raw) : prompt;
    let text = '';
    let completionTokens = 0;
    let firstTokenMs: number | null = null;
    let final: CompletionChunk | null = null;
    const top = req.sampling.logprobs;
    const scored: ScoredToken[] = [];
    // The commitment is read from the same pre-sampling distribution, each token's id with its likeliest candidates.
    const steps: Step[] = [];
    const probs = top !== undefined || req.commit ? Math.max(1, top ?? 0, req.commit ? COMMIT_TOP : 0) : undefined;
    // Bytes decoded as one stream: a character split across tokens comes out whole on the token that ends it. (This
    // llama-server sends nothing for a token ending inside a character: the next entry has the whole character.)
    const pieces = new TextDecoder();
    const result = (stopReason: GenerateResult['stopReason']): GenerateResult => ({
      text,
      stopReason,
      promptTokens: prompt.length,
      completionTokens,
      firstTokenMs,
      durationMs: elapsed(),
      ...(top !== undefined ? { logprobs: replyLogprobs(text, scored) } : {}),
      ...(req.commit ? { commitment: steps } : {}),
    });
    if (req.signal?.aborted) return result('abort');
    // llama-server's JSON grammar lets whitespace follow the value without end, and a model may take it: a JSON reply
    // is answered as soon as its text is a whole JSON value. The rest is read and dropped (closing the request instead
    // left llama-server's slot busy on a loaded machine).
    let whole = false;
    let wholeJson = (): void => undefined;
    const answered = new Promise<void>((resolve) => (wholeJson = resolve));
    let res: Response;
    try {
      res = await send(`${this.base}/completion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          // Token ids: llama-server evaluates them as they are (no BOS added, nothing parsed).
          prompt: evaluated,
          ...llamaServerOptions(req.sampling, await this.framedGrammar(req.sampling)),
          // The model's own distribution before the sampler (as the engine scores), at least the chosen token's.
          ...(probs !== undefined ? { n_probs: probs, post_sampling_probs: false } : {}),
          stream: true,
        }),
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (err) {
      if (req.signal?.aborted) return result('abort');
      throw err;
    }
    if (!res.ok || !res.body) throw new Error(`llama-server answered ${res.status}: ${await res.text().catch(() => '')}`);
    const parser = createParser({
      onEvent: (e) => {
        const chunk = JSON.parse(e.data) as CompletionChunk;
        if (whole) return;
        for (const p of chunk.completion_probabilities ?? []) {
          if (req.commit)
            steps.push({
              token: p.id,
              logprob: clampLogprob(p.logprob),
              top: (p.top_logprobs ?? []).slice(0, COMMIT_TOP).map((c) => [c.id, clampLogprob(c.logprob)]),
            });
          if (top !== undefined)
            scored.push({
              piece: pieces.decode(Uint8Array.from(p.bytes), { stream: true }),
              // A probability of 0 comes as float's lowest value: the floor, as the engine answers it.
              logprob: clampLogprob(p.logprob),
              top: (p.top_logprobs ?? [])
                .slice(0, top)
                .map((c) => ({ piece: new TextDecoder().decode(Uint8Array.from(c.bytes)), logprob: clampLogprob(c.logprob) })),
            });
        }
        if (chunk.content) {
          firstTokenMs ??= elapsed();
          text += chunk.content;
          req.onToken?.(chunk.content);
        }
        completionTokens = chunk.tokens_predicted ?? completionTokens + (chunk.tokens?.length ?? 0);
        if (req.sampling.json_schema && !req.sampling.json_frame && !chunk.stop && isWholeJson(text)) {
          whole = true;
          wholeJson();
        }
        if (chunk.stop) final = chunk;
      },
    });
    const decoder = new TextDecoder();
    const body = res.body;
    const reading = (async () => {
      for await (const bytes of body) parser.feed(decoder.decode(bytes as Uint8Array, { stream: true }));
    })();
    try {
      await Promise.race([reading, answered]);
    } catch (err) {
      // Closing the request is how a generation is stopped: llama-server ends it at once.
      if (req.signal?.aborted) return result('abort');
      throw err;
    }
    if (whole) {
      reading.catch(() => undefined);
      return result('stop');
    }
    if (req.signal?.aborted) return result('abort');
    const done = final as CompletionChunk | null;
    if (!done) throw new Error('llama-server ended the reply without its last event');
    completionTokens = done.tokens_predicted ?? completionTokens;
    return result(done.stop_type === 'limit' ? 'length' : 'stop');
  }
}

/**
 * The scored tokens as the reply's: the end-of-generation token, which writes no text, is not one of them (the
 * engine scores the text's own tokens), and they join exactly to `text`.
 */
function replyLogprobs(text: string, scored: ScoredToken[]): TokenLogprob[] {
  let end = scored.length;
  while (end > 0 && scored[end - 1]!.piece === '') end--;
  return cutLogprobs(alignLogprobs(text, scored.slice(0, end)), text.length);
}

/** Whether a reply's text so far is one whole JSON object or array (its closing bracket written). */
export function isWholeJson(text: string): boolean {
  const t = text.trimEnd();
  if (!t.endsWith('}') && !t.endsWith(']')) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}
