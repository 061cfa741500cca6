/* The catalog's model files on this host (MODELS_DIR, MODEL_CATALOG or the built-in catalog):
 *   npm run model:pull -- <id> [<id>…]   pulls them for the in-cluster worker, resumably, checked by SHA-256
 *   npm run model:pin -- <id> [<id>…]    writes their SHA-256 and size, read from their source, into the catalog
 * Exit 1 when a model is unknown or a file could not be pulled or pinned. */
import { catalogLocation } from './config/config';
import { BUILT_IN_CATALOG_PATH, readCatalogFile } from './modules/catalog/catalog';
import { pinCatalogModel, pullCatalogModel } from './modules/catalog/catalog-files';

async function main(): Promise<number> {
  const [command, ...ids] = process.argv.slice(2);
  const location = catalogLocation();
  const catalog = readCatalogFile(location);
  if ((command !== 'pull' && command !== 'pin') || ids.length === 0) {
    console.error(
      `Usage: npm run model:${command === 'pin' ? 'pin' : 'pull'} -- <model id> […]; the catalog has ${catalog.map((m) => m.id).join(', ')}`,
    );
    return 1;
  }
  let failed = false;
  for (const id of ids) {
    const model = catalog.find((m) => m.id === id);
    if (!model) {
      console.error(`No model ${id} in the catalog (${catalog.map((m) => m.id).join(', ')})`);
      failed = true;
    } else if (command === 'pin') await pinCatalogModel(location.catalogPath ?? BUILT_IN_CATALOG_PATH, model, console.log);
    else failed = !(await pullCatalogModel(model, console.log, process.stdout.isTTY)) || failed;
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
