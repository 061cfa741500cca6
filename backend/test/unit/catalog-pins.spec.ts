/**
 * The built-in catalog's pins: every real model nodes can pull is pinned (SHA-256 and size of each file, read from public
 * sources), from a Hugging Face URL of its own file; the one model no public source pinned is left unpinned and named
 * as such. Nodes pull a model only once it is pinned, and keep only bytes that hash to the pin.
 */
import { readFileSync } from 'node:fs';
import {
  BUILT_IN_CATALOG,
  BUILT_IN_CATALOG_PATH,
  DEFAULT_CONTEXT_LENGTH,
  PROJECT_MODEL_FILES,
  readCatalogFile,
} from '../../src/modules/catalog/catalog';

/** The model no public source gave a SHA-256 and size for: nodes never pull it until an operator pins it. */
const UNPINNED = 'llama-3-70b-instruct';
/** The product's four default models. */
const DEFAULT_MODELS = ['llama-3.3-70b-instruct', 'llama-3-70b-instruct', 'llama-3.2-1b-instruct', 'llama-3-8b-instruct'];
/** The small chat tier any CPU node can serve, and the real embedding models. */
const SMALL_TIER = [
  'qwen2.5-0.5b-instruct',
  'llama-3.2-1b-instruct-q4_k_m',
  'qwen2.5-1.5b-instruct',
  'smollm2-1.7b-instruct',
  'llama-3.2-3b-instruct',
];
const EMBEDDING_MODELS = ['nomic-embed-text-v1.5', 'bge-small-en-v1.5', 'all-minilm-l6-v2'];
/** A file on Hugging Face: owner/repository, then `resolve/` at a branch or a 40-digit commit, then the file. */
const HF_RESOLVE = /^https:\/\/huggingface\.co\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/resolve\/(?:main|[0-9a-f]{40})\/([A-Za-z0-9_.-]+\.gguf)$/;

const catalog = readCatalogFile({ modelsDir: '/models' });
const raw = BUILT_IN_CATALOG.models;
const comment = (JSON.parse(readFileSync(BUILT_IN_CATALOG_PATH, 'utf8')) as { $comment: string }).$comment;
/** A file's name as the catalog stores it: lower-case, without the publisher's `Meta-` prefix some sources add. */
const normalName = (name: string) => name.toLowerCase().replace(/^meta-/, '');

describe('the built-in catalog', () => {
  it('is valid, its ids unique, and keeps the four default models', () => {
    const ids = catalog.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...DEFAULT_MODELS, ...SMALL_TIER, ...EMBEDDING_MODELS]));
    expect(ids.slice(0, DEFAULT_MODELS.length)).toEqual(DEFAULT_MODELS);
    for (const m of catalog) expect(m.id).toBe(m.id.toLowerCase());
  });

  it('pins every model with a source (a SHA-256 and a size per file), except the one named unpinned', () => {
    const withSource = catalog.filter((m) => m.files.some((f) => f.url));
    const pinned = withSource.filter((m) => m.files.every((f) => f.url && f.sha256 && f.sizeBytes));
    expect(withSource.filter((m) => !pinned.includes(m)).map((m) => m.id)).toEqual([UNPINNED]);
    expect(pinned.map((m) => m.id)).toEqual(
      expect.arrayContaining([...DEFAULT_MODELS.filter((id) => id !== UNPINNED), ...SMALL_TIER, ...EMBEDDING_MODELS]),
    );
    for (const m of pinned) {
      const entry = raw.find((r) => r.id === m.id)!;
      // One value per part, as the files are: a plain value for a single file.
      expect([entry.sha256, entry.size_bytes].map((v) => (Array.isArray(v) ? v.length : 1))).toEqual([m.files.length, m.files.length]);
      for (const f of m.files) {
        expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(Number.isSafeInteger(f.sizeBytes) && f.sizeBytes! > 0).toBe(true);
      }
    }
    // The unpinned model keeps its source (an operator pins it from there), and the catalog says why it is not pulled.
    const unpinned = raw.find((m) => m.id === UNPINNED)!;
    expect(unpinned).toMatchObject({ source: expect.stringMatching(HF_RESOLVE) });
    expect(unpinned.sha256).toBeUndefined();
    expect(unpinned.size_bytes).toBeUndefined();
    expect(comment).toContain(`except ${UNPINNED}`);
    expect(comment).toMatch(/an unpinned model is never pulled by nodes until an operator pins it/);
    // A model without a source is one of the project's own, which the API serves itself.
    for (const m of catalog.filter((x) => !withSource.includes(x))) expect(PROJECT_MODEL_FILES).toContain(m.files[0]!.name);
  });

  it('pulls each pinned file from an https Hugging Face resolve/ URL of that very file', () => {
    const files = catalog.flatMap((m) => m.files.filter((f) => f.url).map((f) => ({ id: m.id, ...f })));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const [, fileName] = HF_RESOLVE.exec(f.url!) ?? [];
      expect({ id: f.id, url: f.url, matches: normalName(fileName ?? '') === normalName(f.name) }).toEqual({ id: f.id, url: f.url, matches: true });
    }
    // No two files share a pin, a source or a name in a node's models directory: a pin copied onto the wrong model would
    // be refused by every node.
    const pins = files.filter((f) => f.sha256);
    expect(new Set(pins.map((f) => f.sha256)).size).toBe(pins.length);
    expect(new Set(files.map((f) => f.url)).size).toBe(files.length);
    expect(new Set(files.map((f) => f.name)).size).toBe(files.length);
  });

  it('marks the embedding models as such, and gives every model its tier’s price and a context length the platform uses', () => {
    for (const id of [...EMBEDDING_MODELS, 'glob-tiny-embed'])
      expect(catalog.find((m) => m.id === id)).toMatchObject({ kind: 'embedding', pricePerToken: 0.002 });
    for (const id of [...DEFAULT_MODELS, ...SMALL_TIER]) expect(catalog.find((m) => m.id === id)!.kind).toBe('chat');
    for (const id of SMALL_TIER) expect(catalog.find((m) => m.id === id)!.pricePerToken).toBe(0.05);
    expect(Object.fromEntries(DEFAULT_MODELS.map((id) => [id, catalog.find((m) => m.id === id)!.pricePerToken]))).toEqual({
      'llama-3.3-70b-instruct': 0.25,
      'llama-3-70b-instruct': 0.25,
      'llama-3.2-1b-instruct': 0.125,
      'llama-3-8b-instruct': 0.125,
    });
    // The tiers the catalog's comment states, and no other price.
    expect([...new Set(catalog.map((m) => m.pricePerToken))].sort((a, b) => a - b)).toEqual([0.002, 0.05, 0.125, 0.25]);
    for (const m of catalog) expect(m.contextLength).toBeLessThanOrEqual(DEFAULT_CONTEXT_LENGTH);
    expect(Object.fromEntries(EMBEDDING_MODELS.map((id) => [id, catalog.find((m) => m.id === id)!.contextLength]))).toEqual({
      'nomic-embed-text-v1.5': 2048,
      'bge-small-en-v1.5': 512,
      'all-minilm-l6-v2': 512,
    });
    // The small tier fits a modest computer: each model's file is at most about 2 GB.
    for (const id of SMALL_TIER) expect(catalog.find((m) => m.id === id)!.files[0]!.sizeBytes).toBeLessThan(2.1e9);
  });
});
