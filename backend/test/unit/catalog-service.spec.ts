/** The catalog as one service: read once, read again when its file changes, kept as it was when the new file is invalid. */
import { Logger } from '@nestjs/common';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogService } from '../../src/modules/catalog/catalog.service';

const entry = (id: string) => ({ id, name: id, parameters: '1B', price_per_token: 0.125, path: `${id}.gguf` });

describe('CatalogService', () => {
  let dir: string;
  let path: string;
  let catalog: CatalogService;
  /** Written aside and renamed into place, as an editor or a deploy replaces a file. */
  const write = (text: string) => {
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
  };
  /** The catalog's file is polled for changes: wait until the ids are these (or give up). */
  const idsBecome = async (ids: string[]) => {
    const deadline = Date.now() + 15_000;
    while (catalog.ids().join() !== ids.join() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return catalog.ids();
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-service-'));
    path = join(dir, 'catalog.json');
    write(JSON.stringify({ models: [entry('first'), entry('second')] }));
    catalog = new CatalogService({ inference: { catalogPath: path, modelsDir: dir } } as never);
  });
  afterAll(() => {
    catalog.onModuleDestroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the file once, priced in milli-GLOB, its paths resolved', () => {
    expect(catalog.ids()).toEqual(['first', 'second']);
    expect(catalog.get('second')).toMatchObject({ priceUnits: 125, path: join(dir, 'second.gguf'), contextLength: 8192 });
    expect(catalog.has('third')).toBe(false);
  });

  it('is read again when the file changes, and keeps what it had while the new file is invalid', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    write(JSON.stringify({ models: [entry('first'), entry('third')] }));
    expect(await idsBecome(['first', 'third'])).toEqual(['first', 'third']);
    expect(String(log.mock.calls[0]![0])).toMatch(/reloaded: 2 model\(s\)/);
    log.mockRestore();
    expect(catalog.get('third')?.path).toBe(join(dir, 'third.gguf'));
    expect(catalog.get('second')).toBeUndefined();

    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      write('{ "models": [');
      while (warn.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 100));
      expect(String(warn.mock.calls[0]![0])).toMatch(/cannot be used, so it stays as it was/);
      expect(catalog.ids()).toEqual(['first', 'third']);
    } finally {
      warn.mockRestore();
    }
  }, 30_000);
});
