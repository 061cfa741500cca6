import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_CATALOG, PROJECT_MODEL_FILES, TINY_EMBED_MODEL_FILE, TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';

/**
 * The built-in catalog for test stacks, with every model's file being the tiny model's: the tests' scripted nodes
 * declare catalog models whose weights nobody has, and the platform serves only models whose file it holds (to
 * challenge nodes with) and whose tokens it can count. Embedding models get the tiny embedding model's file, and the
 * project's own models (the real-vocabulary tiny ones) keep theirs.
 */
export function testCatalog(modelsDir = process.env.MODELS_DIR!): string {
  const path = join(modelsDir, 'catalog.test.json');
  // A real model's pins are its real file's: the tiny stand-in is served by the API, which hashes it itself.
  const models = BUILT_IN_CATALOG.models.map(({ source: _source, sha256: _sha256, size_bytes: _size, ...m }) => ({
    ...m,
    path: PROJECT_MODEL_FILES.includes(m.path) ? m.path : m.kind === 'embedding' ? TINY_EMBED_MODEL_FILE : TINY_MODEL_FILE,
  }));
  // Written aside and renamed: test files starting at once never read half a file.
  const temp = `${path}.${process.pid}`;
  writeFileSync(temp, JSON.stringify({ models }));
  renameSync(temp, path);
  return path;
}
