import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../../src/config/config';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { CatalogService } from '../../src/modules/catalog/catalog.service';
import { ModelFilesService } from '../../src/modules/catalog/model-files.service';

/**
 * What the platform itself knows of a model's size and layers, which pools are planned from (never a member's
 * report): the size its files are pinned at or the API's copy has, the layers from the header of the API's copy of
 * the model or, where it holds only the tokenizer, of that.
 */
describe('a model’s size and layers, as the platform knows them', () => {
  let dir: string;
  let catalog: CatalogService;
  let service: ModelFilesService;
  let tinyBytes: number;
  const pinned = { sha256: 'ab'.repeat(32), size_bytes: 4_815_162_342 };
  const entry = (id: string, extra: object) => ({ id, name: id, parameters: '8B', price_per_token: 0.125, ...extra });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pool-facts-'));
    const tiny = join(process.env.MODELS_DIR!, TINY_MODEL_FILE);
    tinyBytes = (await stat(tiny)).size;
    await copyFile(tiny, join(dir, 'own.gguf'));
    await copyFile(tiny, join(dir, 'vocab.gguf'));
    const source = 'https://models.example/m.gguf';
    const models = [
      entry('own-copy', { path: 'own.gguf' }),
      entry('pinned-with-tokenizer', { path: 'absent.gguf', tokenizer: join(dir, 'vocab.gguf'), source, ...pinned }),
      entry('pinned-without-header', { path: 'absent.gguf', source, ...pinned }),
      entry('unpinned', { path: 'absent.gguf', tokenizer: join(dir, 'vocab.gguf'), source }),
      entry('no-file', { path: 'nothing.gguf' }),
    ];
    await writeFile(join(dir, 'catalog.json'), JSON.stringify({ models }));
    catalog = new CatalogService({ inference: { catalogPath: join(dir, 'catalog.json'), modelsDir: dir } } as AppConfig);
    service = new ModelFilesService(catalog);
  });
  afterAll(async () => {
    catalog.onModuleDestroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the size and layers of the API’s own copy', async () => {
    expect(await service.facts('own-copy')).toEqual({ bytes: tinyBytes, layers: 4 });
  });

  it('takes the pinned size and the layers of the tokenizer’s header where the API lacks the model', async () => {
    expect(await service.facts('pinned-with-tokenizer')).toEqual({ bytes: pinned.size_bytes, layers: 4 });
  });

  it('knows nothing without both: no pinned size, or no header to read the layers from', async () => {
    expect(await service.facts('pinned-without-header')).toBeNull();
    expect(await service.facts('unpinned')).toBeNull();
    expect(await service.facts('no-file')).toBeNull();
    expect(await service.facts('not-in-the-catalog')).toBeNull();
  });
});
