#!/usr/bin/env node
// Builds llama.cpp's RPC server (and its HTTP server) from the llama.cpp source node-llama-cpp ships
// (node_modules/node-llama-cpp/llama/gitRelease.bundle), with GGML_RPC on, into a cache outside the clone:
// ~/.cache/glob-network/llama.cpp-<bundle hash>/bin (GLOB_CACHE_DIR overrides ~/.cache/glob-network), linked
// statically so the binaries stand alone. Nothing is downloaded. A second run finds the build and only prints where it is.
// With the CUDA toolkit (nvcc) and an NVIDIA GPU (nvidia-smi) present, it builds the CUDA backend (into
// llama.cpp-<hash>-cuda), so pool members with GPUs compute their layers there; GLOB_LLAMA_BACKEND=cpu|cuda decides
// instead. It says which backend it built, and writes it to backend.json beside bin/.
//   node node-agent/llama-rpc.mjs            build if needed; prints the bin directory
//   node node-agent/llama-rpc.mjs --jobs 2   parallel compile jobs (default: the machine's cores)
// It ships in the glob-node package beside the agent, which runs it on a node's first pool assignment.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The targets the platform needs: the RPC server a pool member runs, and the server a coordinator drives. */
export const TARGETS = ['ggml-rpc-server', 'llama-server', 'llama-gguf-split'];

/** node-llama-cpp's package directory, wherever npm put it (the repository's root, or an installed agent's). */
function nodeLlamaCppDir() {
  let dir = dirname(createRequire(import.meta.url).resolve('node-llama-cpp'));
  const isIt = (d) => existsSync(join(d, 'package.json')) && JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).name === 'node-llama-cpp';
  while (!isIt(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const bundle = join(nodeLlamaCppDir(), 'llama', 'gitRelease.bundle');

/**
 * Which backend to build: CUDA when the CUDA toolkit (nvcc) and an NVIDIA GPU (nvidia-smi lists one) are both
 * there, since a CUDA build cannot run without the GPU's driver; otherwise the CPU. GLOB_LLAMA_BACKEND=cpu|cuda
 * decides instead. Answers the backend, the CUDA version found, and why, in words.
 */
export function detectBackend(env = process.env) {
  const run = (cmd, args) => spawnSync(cmd, args, { encoding: 'utf8', env });
  const nvcc = run('nvcc', ['--version']);
  const cuda = nvcc.status === 0 ? (/release (\d+\.\d+)/.exec(nvcc.stdout)?.[1] ?? null) : null;
  const forced = env.GLOB_LLAMA_BACKEND;
  if (forced === 'cpu') return { backend: 'cpu', cuda, reason: 'GLOB_LLAMA_BACKEND=cpu' };
  if (forced === 'cuda') {
    if (!cuda) throw new Error('GLOB_LLAMA_BACKEND=cuda, but no CUDA toolkit (nvcc) is on PATH');
    return { backend: 'cuda', cuda, reason: `GLOB_LLAMA_BACKEND=cuda, CUDA ${cuda}` };
  }
  if (!cuda) return { backend: 'cpu', cuda, reason: 'no CUDA toolkit (nvcc) on PATH' };
  const gpu = /^GPU \d+: (.+?)(?: \(UUID|$)/m.exec(run('nvidia-smi', ['-L']).stdout ?? '')?.[1];
  if (!gpu) return { backend: 'cpu', cuda, reason: `CUDA ${cuda} found, but no NVIDIA GPU (nvidia-smi lists none)` };
  return { backend: 'cuda', cuda, reason: `CUDA ${cuda}, ${gpu}` };
}

/** Where this llama.cpp source's build lives: one directory per bundle (and backend), so a new node-llama-cpp builds anew. */
export function buildDir(backend = detectBackend().backend) {
  if (!existsSync(bundle)) throw new Error(`No llama.cpp source at ${bundle}: run npm install first`);
  const hash = createHash('sha256').update(readFileSync(bundle)).digest('hex').slice(0, 12);
  const cache = process.env.GLOB_CACHE_DIR ?? join(homedir(), '.cache', 'glob-network');
  return join(cache, `llama.cpp-${hash}${backend === 'cuda' ? '-cuda' : ''}`);
}

/** The bin directory holding TARGETS, building them first when they are missing. */
export function ensureLlamaRpc({ jobs = availableParallelism(), log = console.log } = {}) {
  const found = detectBackend();
  const dir = buildDir(found.backend);
  const bin = join(dir, 'bin');
  const built = () => TARGETS.every((t) => existsSync(join(bin, t)));
  if (built()) return bin;
  // One build at a time per cache (two agents, or two test processes, starting at once): the others wait for it.
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const holder = Number(readFileSync(lock, 'utf8'));
    if (!alive(holder)) {
      rmSync(lock, { force: true });
      continue;
    }
    log(`Waiting for the llama.cpp build of process ${holder} (${dir})…`);
    while (alive(holder) && existsSync(lock)) sleepSync(5_000);
    if (built()) return bin;
  }
  try {
    if (built()) return bin;
    return build(found, dir, bin, jobs, log);
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Whether a process of this machine is still running. */
function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function build(found, dir, bin, jobs, log) {
  log(
    `Building llama.cpp with RPC and the ${found.backend.toUpperCase()} backend (${found.reason}) into ${dir} (once per llama.cpp version; on 2 cores this takes a while)…`,
  );
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
    ...(found.backend === 'cuda' ? ['-DGGML_CUDA=ON'] : []),
  ]);
  run(['--build', 'build', '--config', 'Release', '-j', String(jobs), '--target', ...TARGETS]);
  mkdirSync(join(work, 'bin'), { recursive: true });
  for (const t of TARGETS) renameSync(join(src, 'build', 'bin', t), join(work, 'bin', t));
  rmSync(src, { recursive: true, force: true });
  writeFileSync(join(work, 'backend.json'), `${JSON.stringify(found)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  log(`Built ${TARGETS.join(', ')} with the ${found.backend.toUpperCase()} backend in ${bin}`);
  return bin;
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { jobs: { type: 'string' } } });
  const started = Date.now();
  const bin = ensureLlamaRpc({ jobs: values.jobs ? Number(values.jobs) : undefined });
  console.log(`${bin} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
