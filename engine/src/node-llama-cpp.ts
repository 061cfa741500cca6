/**
 * The one place node-llama-cpp is imported at run time (elsewhere only `import type`), and only when first
 * needed, so a module that merely imports the engine never loads it (it is ESM-only: see esm.ts).
 */
import type * as Nlc from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { importEsmPackage } from './esm';

export type NodeLlamaCpp = typeof Nlc;

let nlcModule: Promise<NodeLlamaCpp> | null = null;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  nlcModule ??= importEsmPackage<NodeLlamaCpp>(require.resolve('node-llama-cpp'));
  return nlcModule;
}
