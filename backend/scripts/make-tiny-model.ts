/**
 * Writes the built-in tiny chat model (random weights from a fixed seed; nothing is downloaded), and beside it, when
 * `out` is a directory (or left out), the tiny embedding model (the same shape, mean pooling, its own seed) and the
 * tiny models with Llama 3's and Qwen 2.5's real tokenizers and chat templates (tiny-model/real-vocabulary.ts).
 *
 *   node --conditions=glob-source -r @swc-node/register scripts/make-tiny-model.ts [out=../.data/models/] [--force] [--seed=N]
 *     [--layers=N] [--embd=N] [--ff=N] [--heads=N] [--splits=N] [--embedding]
 *
 * --layers/--embd/--ff/--heads change the shape (a bigger model for pooling tests); --splits=N writes N
 * files as llama.cpp's gguf-split does, `out` then naming (or being turned into) the first part's name. An `out`
 * that is a directory (or ends in /) gets the tiny model's file name. --embedding writes an embedding model
 * (mean pooling) to `out` instead of a chat model.
 * Skips writing when the file exists and validates, unless --force. Always validates what it leaves
 * behind and prints path, size and parameter count.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { GgufError, splitPartPath, splitParts } from '@glob/engine/gguf';
import { validateGguf } from '@glob/engine/gguf-validate';
import { TINY_EMBED_MODEL_FILE, TINY_FAMILY_MODEL_FILES, TINY_MODEL_FILE } from '../src/modules/catalog/catalog';
import { writeTinyLlamaGguf, type TinyModelOptions } from './tiny-model/write-tiny-gguf';

const DEFAULT_OUT = resolve(__dirname, '..', '..', '.data', 'models') + '/';
/** The tiny embedding model's seed (its weights differ from the chat model's). */
const EMBED_SEED = 2;
/**
 * The real-vocabulary models' shape: grouped-query attention (4 query heads per key/value head, as Llama 3 8B has) and
 * Llama 3's 128k context length in the metadata (the engine caps a context at 4096), small elsewhere: their 128k and
 * 151k-token vocabularies (in F16) are most of their ~40 MB.
 */
const FAMILY_SHAPE = { nEmbd: 64, nLayer: 2, nHead: 4, nHeadKv: 1, nFf: 192, contextLength: 131072 } satisfies TinyModelOptions;
const FAMILY_SEEDS = { llama3: 11, qwen2: 12 } as const;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const int = (name: string): number | undefined => {
    const arg = args.find((a) => a.startsWith(`--${name}=`));
    if (arg === undefined) return undefined;
    const v = Number(arg.slice(name.length + 3));
    if (!Number.isInteger(v)) throw new Error(`--${name} must be an integer, got ${arg}`);
    return v;
  };
  const seed = int('seed') ?? 1;
  const splits = int('splits') ?? 1;
  const embedding = args.includes('--embedding');
  const opts: TinyModelOptions = { seed, nLayer: int('layers'), nEmbd: int('embd'), nFf: int('ff'), nHead: int('heads'), splits, embedding };
  const positional = args.filter((a) => !a.startsWith('--'));
  const given = positional[0] ?? DEFAULT_OUT;
  const isDir =
    /[/\\]$/.test(given) ||
    (await stat(given).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  const out = isDir ? join(resolve(given), embedding ? TINY_EMBED_MODEL_FILE : TINY_MODEL_FILE) : resolve(given);
  await make(splits > 1 && splitParts(out).length !== splits ? splitPartPath(out.replace(/\.gguf$/, ''), 1, splits) : out, opts, force);
  // The embedding model the catalog serves comes with the chat model: `make dev`, `make serve` and the tests need both.
  const shaped = ['layers', 'embd', 'ff', 'heads', 'seed', 'splits'].some((n) => int(n) !== undefined);
  if (isDir && !embedding && !shaped) {
    await make(join(dirname(out), TINY_EMBED_MODEL_FILE), { seed: EMBED_SEED, embedding: true }, force);
    for (const [family, file] of Object.entries(TINY_FAMILY_MODEL_FILES) as Array<[keyof typeof TINY_FAMILY_MODEL_FILES, string]>) {
      await make(join(dirname(out), file), { ...FAMILY_SHAPE, family, seed: FAMILY_SEEDS[family] }, force);
    }
  }
}

/** Writes (or keeps) one model file and prints what it left behind. */
async function make(out: string, opts: TinyModelOptions, force: boolean): Promise<void> {
  const splits = opts.splits ?? 1;

  const KEPT = 'kept: it exists and validates; --force rewrites it';
  let action = 'written';
  const exists = await stat(out).then(
    () => true,
    () => false,
  );
  if (exists && !force) {
    try {
      await validateGguf(out);
      action = KEPT;
    } catch (err) {
      if (!(err instanceof GgufError)) throw err;
      console.warn(`existing file is not valid (${err.message}); rewriting it`);
      action = 'rewritten';
    }
  }
  if (action !== KEPT) {
    await mkdir(dirname(out), { recursive: true });
    // Written under a temporary name (same part suffixes), then renamed: a crash leaves no half model.
    const parts = splitParts(out);
    const tmpPrefix = `${dirname(out)}/.tmp-${process.pid}`;
    const tmpFirst = splits > 1 ? splitPartPath(tmpPrefix, 1, splits) : `${tmpPrefix}.gguf`;
    const tmpParts = splitParts(tmpFirst);
    try {
      const t0 = performance.now();
      await writeTinyLlamaGguf(tmpFirst, opts);
      for (const [i, tmp] of tmpParts.entries()) await rename(tmp, parts[i]!);
      action += ` in ${Math.round(performance.now() - t0)} ms`;
    } catch (err) {
      for (const tmp of tmpParts) await rm(tmp, { force: true });
      throw err;
    }
  }
  const summary = await validateGguf(out);
  let size = 0;
  for (const part of splitParts(out)) size += (await stat(part)).size;
  console.log(
    [
      `model: ${out}${splits > 1 ? ` (first of ${splits} parts)` : ''} (${action})`,
      `size: ${size} bytes (${(size / 1048576).toFixed(2)} MiB)`,
      `parameters: ${summary.parameters} (${(summary.parameters / 1e6).toFixed(2)} M)`,
      `architecture: ${summary.architecture}, vocabulary: ${summary.vocabSize}, context: ${summary.contextLength}`,
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? `${err.name}: ${err.message}` : err);
  process.exit(1);
});
