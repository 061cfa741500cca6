import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_CATALOG, TINY_EMBED_MODEL_FILE, TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';

/**
 * The built-in catalog for test stacks, with every model's file being the tiny model's: the tests' scripted nodes
 * declare catalog models whose weights nobody has, and the platform serves only models whose file it holds (to
 * challenge nodes with) and whose tokens it can count. The embedding model keeps its own file (the tiny embedding model).
 */
export function testCatalog(modelsDir = process.env.MODELS_DIR!): string {
  const path = join(modelsDir, 'catalog.test.json');
  const models = BUILT_IN_CATALOG.models.map(({ source: _source, ...m }) => ({
    ...m,
    path: m.kind === 'embedding' ? TINY_EMBED_MODEL_FILE : TINY_MODEL_FILE,
  }));
  // Written aside and renamed: test files starting at once never read half a file.
  const temp = `${path}.${process.pid}`;
  writeFileSync(temp, JSON.stringify({ models }));
  renameSync(temp, path);
  return path;
}
