// Everything a release takes from the npm registry, fetched once per machine into CACHE_DIR (outside the clone) and
// reused by every build: the Node.js runtimes, node-llama-cpp's prebuilt binaries and the app's JavaScript libraries.
//   npm/<tarball>.tgz             as `npm pack` fetched it
//   pkg/<tarball name>/           unpacked, modes normalized (bundles hard-link their files from here)
//   modules/<key>/node_modules/   the app's libraries without binaries, installed once per set of versions
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { x as untar } from 'tar';
import { APP_DEPENDENCIES, CACHE_DIR, LICENSE_RUNTIME, LLAMA_VERSION, NODE_VERSION } from './config.mjs';
import { log, normalizeModes, run, walk } from './util.mjs';

const NPM_DIR = join(CACHE_DIR, 'npm');
const PKG_DIR = join(CACHE_DIR, 'pkg');
const MODULES_DIR = join(CACHE_DIR, 'modules');
const pretty = (p) => p.replace(homedir(), '~');

/** npm's environment without what `npm run` adds (a workspace, the package's fields): the cache is not this repo. */
function npmEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_(package|lifecycle)_/.test(key) || /^npm_config_(local_prefix|workspaces?|include_workspace_root|global|prefix)$/.test(key)) {
      delete env[key];
    }
  }
  return env;
}

/** `npm pack` names the tarball of @scope/name@1.2.3 scope-name-1.2.3.tgz. */
const tarballName = (name, version) => `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;

/** A package's tarball in the cache, fetched with `npm pack` only when missing (into a temporary folder, then moved). */
async function packed(name, version) {
  const file = join(NPM_DIR, tarballName(name, version));
  if (existsSync(file)) return file;
  log(`first build on this machine: fetching ${name}@${version} from the npm registry into ${pretty(NPM_DIR)}`);
  const tmp = join(NPM_DIR, `.tmp-${process.pid}-${tarballName(name, version)}`);
  mkdirSync(tmp, { recursive: true });
  try {
    await run('npm', ['pack', `${name}@${version}`, '--pack-destination', tmp, '--silent'], { cwd: tmp, env: npmEnv() });
    const [got] = readdirSync(tmp).filter((f) => f.endsWith('.tgz'));
    if (!got) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
    renameSync(join(tmp, got), file);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return file;
}

/**
 * Fills a temporary folder, then renames it to `dir` (atomic: a build never sees half a cache entry). Where a build
 * beside this one got there first, its entry stays and this one's is dropped.
 */
async function intoCache(dir, fill) {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await fill(tmp);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      if (!existsSync(dir)) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** A package unpacked (its package/ folder), whole or only `only` (paths inside it), once. */
async function unpacked(name, version, only) {
  const dir = join(PKG_DIR, tarballName(name, version).replace(/\.tgz$/, ''));
  if (existsSync(dir)) return dir;
  const file = await packed(name, version);
  const wanted = only && new Set(only.map((p) => `package/${p}`));
  return intoCache(dir, async (tmp) => {
    await untar({ file, cwd: tmp, strip: 1, filter: wanted ? (path) => wanted.has(path.replace(/^\.\//, '')) : undefined });
    normalizeModes(tmp);
  });
}

/** The Node.js runtime of a target: { binary, license } paths in the cache. */
export async function runtimeFiles(runtime) {
  const dir = await unpacked(runtime.name, NODE_VERSION, [runtime.binary, 'LICENSE']);
  const license = existsSync(join(dir, 'LICENSE')) ? dir : await unpacked(LICENSE_RUNTIME, NODE_VERSION, ['bin/node', 'LICENSE']);
  return { binary: join(dir, runtime.binary), license: join(license, 'LICENSE') };
}

/** One of node-llama-cpp's prebuilt binary packages (@node-llama-cpp/<name>), unpacked. */
export const llamaBinaries = (name) => unpacked(`@node-llama-cpp/${name}`, LLAMA_VERSION);

/**
 * The app's libraries (node-llama-cpp, ipull, systray2 and their dependencies) as plain JavaScript, installed once per
 * set of versions: optional packages (node-llama-cpp's binaries for every platform, CUDA included) are left out and
 * each target adds its own; no install scripts (node-llama-cpp's would build or download llama.cpp for this machine).
 */
export async function appModules() {
  const key = createHash('sha256').update(JSON.stringify(APP_DEPENDENCIES)).digest('hex').slice(0, 12);
  const dir = join(MODULES_DIR, key);
  if (existsSync(dir)) return join(dir, 'node_modules');
  const specs = Object.entries(APP_DEPENDENCIES).map(([n, v]) => `${n}@${v}`);
  log(`first build on this machine: installing ${specs.join(' ')} from the npm registry into ${pretty(dir)}`);
  await intoCache(dir, async (tmp) => {
    writeFileSync(join(tmp, 'package.json'), `${JSON.stringify({ name: 'glob-network-release-modules', private: true }, null, 2)}\n`);
    const flags = ['--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--save-exact'];
    await run('npm', ['install', ...flags, ...specs], { cwd: tmp, env: npmEnv() });
    const modules = join(tmp, 'node_modules');
    // The .bin folders hold symbolic links to the packages' command-line tools, which the app never runs.
    for (const d of walkDirs(modules)) if (d.endsWith('/.bin')) rmSync(d, { recursive: true, force: true });
    normalizeModes(modules);
    // systray2 ships its tray helpers without the executable bit and sets it at run time, which a root-owned install
    // (/opt from the .deb) does not allow: they are executable in every bundle instead.
    for (const e of walk(join(modules, 'systray2', 'traybin'))) if (/^tray_(linux|darwin)/.test(e.rel)) chmodSync(e.abs, 0o755);
  });
  return join(dir, 'node_modules');
}

function* walkDirs(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    yield path;
    if (entry.name !== '.bin') yield* walkDirs(path);
  }
}
