#!/usr/bin/env node
// Builds llama.cpp's RPC server (and its HTTP server) from the llama.cpp source node-llama-cpp ships
// (node_modules/node-llama-cpp/llama/gitRelease.bundle), with GGML_RPC on, into a cache outside the clone:
// ~/.cache/glob-network/llama.cpp-<bundle hash>/bin (GLOB_CACHE_DIR overrides ~/.cache/glob-network), linked
// statically so the binaries stand alone. Nothing is downloaded. A second run finds the build and only prints where it is.
//   node scripts/llama-rpc.mjs            build if needed; prints the bin directory
//   node scripts/llama-rpc.mjs --jobs 2   parallel compile jobs (default: the machine's cores)
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './lib.mjs';

/** The targets the platform needs: the RPC server a pool member runs, and the server a coordinator drives. */
export const TARGETS = ['ggml-rpc-server', 'llama-server', 'llama-gguf-split'];

const bundle = join(root, 'node_modules', 'node-llama-cpp', 'llama', 'gitRelease.bundle');

/** Where this llama.cpp source's build lives: one directory per bundle, so a new node-llama-cpp builds anew. */
export function buildDir() {
  if (!existsSync(bundle)) throw new Error(`No llama.cpp source at ${bundle}: run npm install first`);
  const hash = createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 12);
  const cache = process.env.GLOB_CACHE_DIR ?? join(homedir(), '.cache', 'glob-network');
  return join(cache, `llama.cpp-${hash}`);
}

/** The bin directory holding TARGETS, building them first when they are missing. */
export function ensureLlamaRpc({ jobs = availableParallelism(), log = console.log } = {}) {
  const dir = buildDir();
  const bin = join(dir, 'bin');
  if (TARGETS.every((t) => existsSync(join(bin, t)))) return bin;
  log(`Building llama.cpp with RPC into ${dir} (once per llama.cpp version; a CPU-only build on 2 cores takes a while)…`);
  const work = `${dir}.partial`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const src = join(work, 'src');
  execFileSync('git', ['clone', '--quiet', bundle, src], { stdio: 'inherit' });
  const run = (args) => {
    const r = spawnSync('cmake', args, { cwd: src, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`cmake ${args.join(' ')} failed (${r.status ?? r.signal})`);
  };
  run([
    '-B',
    'build',
    '-DGGML_RPC=ON',
    '-DLLAMA_CURL=OFF',
    '-DLLAMA_BUILD_TESTS=OFF',
    '-DLLAMA_BUILD_EXAMPLES=OFF',
    '-DCMAKE_BUILD_TYPE=Release',
    '-DBUILD_SHARED_LIBS=OFF',
  ]);
  run(['--build', 'build', '--config', 'Release', '-j', String(jobs), '--target', ...TARGETS]);
  mkdirSync(join(work, 'bin'), { recursive: true });
  for (const t of TARGETS) renameSync(join(src, 'build', 'bin', t), join(work, 'bin', t));
  rmSync(src, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  log(`Built ${TARGETS.join(', ')} in ${bin}`);
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { jobs: { type: 'string' } } });
  const started = Date.now();
  const bin = ensureLlamaRpc({ jobs: values.jobs ? Number(values.jobs) : undefined });
  console.log(`${bin} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
