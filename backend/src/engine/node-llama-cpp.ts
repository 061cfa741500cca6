/**
 * The one place node-llama-cpp is imported at run time (elsewhere only `import type`), and only when first
 * needed, so a module that merely imports the engine never loads it.
 *
 * Why the import looks odd: node-llama-cpp is ESM-only (with top-level await), the backend is CommonJS.
 * tsc (module nodenext) and @swc/jest (with our .swcrc) keep `import()` as is, but @swc-node/register
 * (dev:api, dev:worker, scripts) rewrites it into `require()` unless SWC_NODE_IGNORE_DYNAMIC is set, and
 * that fails with ERR_REQUIRE_ASYNC_MODULE on Node 20 (node-llama-cpp has top-level await; measured).
 * A function built with `new Function` is seen by no compiler, so its `import()` stays a real dynamic
 * import under all three. It is given an absolute file URL (require.resolve honours the package's "node"
 * export condition) so resolution does not depend on the working directory.
 *
 * jest's VM refuses every dynamic import without --experimental-vm-modules; there (and only there) the
 * import falls back to a function node:vm compiles in Node's main context with Node's own ESM loader. That
 * is enough for the pure-JS parts (the GGUF reader); tests that need the native engine still run it in a
 * child process (test/support/engine-probe.ts).
 */
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };

export type NodeLlamaCpp = typeof Nlc;

type EsmImport = (specifier: string) => Promise<unknown>;

const importEsm = new Function('specifier', 'return import(specifier)') as EsmImport;

function importEsmInJestVm(): EsmImport {
  return vm.runInThisContext('(specifier) => import(specifier)', {
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }) as EsmImport;
}

async function load(): Promise<NodeLlamaCpp> {
  const url = pathToFileURL(require.resolve('node-llama-cpp')).href;
  try {
    return (await importEsm(url)) as NodeLlamaCpp;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG') throw err;
    return (await importEsmInJestVm()(url)) as NodeLlamaCpp;
  }
}

let nlcModule: Promise<NodeLlamaCpp> | null = null;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  nlcModule ??= load();
  return nlcModule;
}
