/**
 * Loads an ESM-only package (node-llama-cpp, ipull) from this CommonJS code, at run time and only when first needed.
 *
 * Why the import looks odd: tsc (module nodenext) and @swc/jest (with our .swcrc) keep `import()` as is, but
 * @swc-node/register (dev:api, dev:worker, scripts) rewrites it into `require()` unless SWC_NODE_IGNORE_DYNAMIC is
 * set, and that fails with ERR_REQUIRE_ASYNC_MODULE on Node 20 for a package with top-level await (node-llama-cpp;
 * measured). A function built with `new Function` is seen by no compiler, so its `import()` stays a real dynamic
 * import under all three. It is given an absolute file URL (require.resolve honours the package's "node" export
 * condition) so resolution does not depend on the working directory.
 *
 * jest's VM refuses every dynamic import without --experimental-vm-modules; there (and only there) the import falls
 * back to a function node:vm compiles in Node's main context with Node's own ESM loader. That is enough for pure-JS
 * code (the GGUF reader); tests that need the native engine still run it in a child process
 * (test/support/engine-probe.ts).
 */
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';

type EsmImport = (specifier: string) => Promise<unknown>;

const importEsm = new Function('specifier', 'return import(specifier)') as EsmImport;

function importEsmInJestVm(): EsmImport {
  return vm.runInThisContext('(specifier) => import(specifier)', {
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }) as EsmImport;
}

/** The package's module, resolved from this file (`resolved`: require.resolve of the package, done by the caller). */
export async function importEsmPackage<T>(resolved: string): Promise<T> {
  const url = pathToFileURL(resolved).href;
  try {
    return (await importEsm(url)) as T;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG') throw err;
    return (await importEsmInJestVm()(url)) as T;
  }
}
