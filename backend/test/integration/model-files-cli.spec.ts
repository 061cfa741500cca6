import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { splitParts } from '@glob/engine/gguf';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { startFileServer, type FileServer } from '../support/file-server';

const REPO = resolve(__dirname, '..', '..', '..');
const SPLIT_FIRST = 'cli-split-00001-of-00003.gguf';

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/**
 * `npm run model:pin` and `npm run model:pull`, run as an operator runs them on the API's host: pinning reads each
 * file's SHA-256 and size from Hugging Face's LFS headers (or hashes the file when a mirror has none) into the
 * catalog; pulling fetches the files into MODELS_DIR for the in-cluster worker, checked against those digests.
 */
describe('npm run model:pin / model:pull', () => {
  let source: string;
  let workerModels: string;
  let hf: FileServer;
  let plain: FileServer;
  let catalogPath: string;

  const npm = (script: string, ids: string[]) =>
    new Promise<{ code: number; out: string }>((done) => {
      execFile(
        'npm',
        ['run', '--silent', script, '--', ...ids],
        { cwd: REPO, env: { ...process.env, MODEL_CATALOG: catalogPath, MODELS_DIR: workerModels } },
        (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
      );
    });
  const catalog = async () => JSON.parse(await readFile(catalogPath, 'utf8')) as { models: Array<Record<string, unknown>> };

  beforeAll(async () => {
    source = await mkdtemp(join(tmpdir(), 'glob-cli-source-'));
    workerModels = await mkdtemp(join(tmpdir(), 'glob-cli-worker-'));
    await writeTinyLlamaGguf(join(source, SPLIT_FIRST), { nLayer: 4, nEmbd: 64, nFf: 128, nHead: 2, splits: 3, seed: 3 });
    await writeTinyLlamaGguf(join(source, 'cli-single.gguf'), { seed: 4 });
    hf = await startFileServer(source, { bytesPerSecond: 64 * 1024 * 1024, lfsHeaders: true });
    plain = await startFileServer(source, { bytesPerSecond: 64 * 1024 * 1024 });
    const base = { parameters: '1M', price_per_token: 0.125, context_length: 256 };
    catalogPath = join(source, 'catalog.json');
    await writeFile(
      catalogPath,
      JSON.stringify({
        models: [
          { ...base, id: 'cli-split', name: 'CLI split', path: SPLIT_FIRST, source: `${hf.url}/${SPLIT_FIRST}` },
          { ...base, id: 'cli-single', name: 'CLI single', path: 'cli-single.gguf', source: `${plain.url}/cli-single.gguf` },
        ],
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await hf?.close();
    await plain?.close();
    for (const d of [source, workerModels]) if (d) await rm(d, { recursive: true, force: true });
  });

  it('refuses to pull a model whose files are not pinned, and names the models of the catalog for an unknown id', async () => {
    const unpinned = await npm('model:pull', ['cli-split']);
    expect(unpinned.code).toBe(1);
    expect(unpinned.out).toContain('cli-split has a source whose files the catalog does not pin yet: run `npm run model:pin -- cli-split` first');
    const unknown = await npm('model:pull', ['nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('No model nope in the catalog (cli-split, cli-single)');
  }, 60_000);

  it('pins each file’s SHA-256 and size: from the LFS headers without fetching, or by reading a mirror without them', async () => {
    const res = await npm('model:pin', ['cli-split', 'cli-single']);
    expect(res.code).toBe(0);
    expect(hf.sent.size).toBe(0);
    expect(res.out).toContain(`${plain.url}/cli-single.gguf: no SHA-256 in its headers; reading the whole file to hash it`);
    const [split, single] = (await catalog()).models;
    const parts = splitParts(join(source, SPLIT_FIRST));
    expect(split!.sha256).toEqual(await Promise.all(parts.map(sha256)));
    expect(split!.size_bytes).toEqual(await Promise.all(parts.map(async (p) => (await stat(p)).size)));
    expect(single!.sha256).toBe(await sha256(join(source, 'cli-single.gguf')));
  }, 60_000);

  it('pulls pinned files into MODELS_DIR, verified; a second run fetches nothing; a corrupted copy is deleted', async () => {
    const first = await npm('model:pull', ['cli-split']);
    expect(first.code).toBe(0);
    expect(first.out).toContain('Pulled and verified cli-split');
    for (const part of splitParts(SPLIT_FIRST)) expect(await sha256(join(workerModels, part))).toBe(await sha256(join(source, part)));
    const sent = [...hf.sent.values()].reduce((a, b) => a + b, 0);
    const again = await npm('model:pull', ['cli-split']);
    expect(again.out).toContain(`cli-split: already here and verified (${join(workerModels, SPLIT_FIRST)})`);
    expect([...hf.sent.values()].reduce((a, b) => a + b, 0)).toBe(sent);

    plain.corrupt.add('cli-single.gguf');
    const corrupt = await npm('model:pull', ['cli-single']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.out).toContain("cli-single.gguf is not the catalog's file (its SHA-256 differs): deleted it");
    await expect(stat(join(workerModels, 'cli-single.gguf'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 90_000);
});
