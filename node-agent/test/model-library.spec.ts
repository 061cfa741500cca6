import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CatalogModel, ModelLibrary, pullDecision } from '../src/model-library';

const GB = 1024 ** 3;
const allocation = { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 };
const model = (id: string, file: string, size: number | null = null): CatalogModel => ({
  id,
  name: id,
  file,
  context_length: 256,
  size_bytes: size,
  files: size === null ? [] : [{ name: file, url: `/api/nodes/catalog/files/${file}`, size_bytes: size, sha256: '0'.repeat(64) }],
});

describe('what the agent pulls', () => {
  it('in catalog order, what fits the disk allocation (after the models already here) and the memory share', () => {
    const catalog = [model('big', 'big.gguf', 30 * GB), model('here', 'here.gguf', 15 * GB), model('next', 'next.gguf', 10 * GB)];
    const d = pullDecision(catalog, new Map([['here', 15 * GB]]), 128 * GB, allocation);
    expect(d.pull.map((m) => m.id)).toEqual(['big']);
    expect(d.skipped).toEqual([
      { model: catalog[2], reason: 'its files (10.0 GB) do not fit in what the disk allocation of 50 GB has left (5.0 GB)' },
    ]);
  });

  it('never a model larger than the memory share, nor one whose files the catalog does not pin', () => {
    const d = pullDecision([model('wide', 'wide.gguf', 8 * GB), model('unpinned', 'u.gguf')], new Map(), 16 * GB, allocation);
    expect(d.pull).toEqual([]);
    expect(d.skipped.map((s) => s.reason)).toEqual(["its files (8.0 GB) are larger than 40 % of this machine's memory (6.4 GB)"]);
  });
});

describe('the model library with split models the catalog pins no source for', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'glob-library-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('offers a model whose parts are all here, with the bytes of all parts; a missing part leaves it out', async () => {
    const parts = [1, 2, 3].map((n) => join(dir, `tiny-0000${n}-of-00003.gguf`));
    for (const [i, p] of parts.entries()) await writeFile(p, Buffer.alloc(100 * (i + 1)));
    const library = new ModelLibrary({ dir, apiUrl: 'http://api.test', log: () => undefined });
    const catalog = [model('split', 'tiny-00001-of-00003.gguf'), model('absent', 'nothing.gguf')];
    const sync = () => library.sync(catalog, allocation, 8 * GB, new AbortController().signal);
    expect(await sync()).toEqual([{ id: 'split', path: parts[0], bytes: 600, contextLength: 256 }]);
    await rm(parts[2]!);
    expect(await sync()).toEqual([]);
  });
});
