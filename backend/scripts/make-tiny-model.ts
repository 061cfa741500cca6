/**
 * Writes the built-in tiny chat model (random weights from a fixed seed; nothing is downloaded).
 *
 *   node -r @swc-node/register scripts/make-tiny-model.ts [out=../.data/models/glob-tiny-chat.gguf] [--force] [--seed=N]
 *
 * Skips writing when the file exists and validates, unless --force. Always validates what it leaves
 * behind and prints path, size and parameter count.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { GgufError } from '../src/modules/inference/engine/gguf';
import { validateGguf } from '../src/modules/inference/engine/gguf-validate';
import { writeTinyLlamaGguf } from './tiny-model/write-tiny-gguf';

const DEFAULT_OUT = resolve(__dirname, '../../.data/models/glob-tiny-chat.gguf');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const seedArg = args.find((a) => a.startsWith('--seed='));
  const seed = seedArg ? Number(seedArg.slice('--seed='.length)) : 1;
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${seedArg}`);
  const positional = args.filter((a) => !a.startsWith('--'));
  const out = resolve(positional[0] ?? DEFAULT_OUT);

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
    const tmp = `${out}.${process.pid}.tmp`;
    try {
      const t0 = performance.now();
      await writeTinyLlamaGguf(tmp, { seed });
      await rename(tmp, out);
      action += ` in ${Math.round(performance.now() - t0)} ms`;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
  const summary = await validateGguf(out);
  const { size } = await stat(out);
  console.log(
    [
      `model: ${out} (${action})`,
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
