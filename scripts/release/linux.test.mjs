// The Linux assets of the test release: the tar.gz (what the app updates itself with) and the .deb; and a second
// version's tar.gz built cheaply from the caches, as the updater's tests need.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AGENT_DIR, VERSION_PATTERN } from './lib/config.mjs';
import { PUBLIC_KEY } from './lib/manifest.mjs';
import { TEST_RELEASES, buildTestRelease } from './test-build.mjs';
import { debDataTar, elf, output, tarEntries, testRelease } from './test-support.mjs';

const release = await testRelease();
const v = release.version;
const asset = (format) => release.manifest.assets.find((a) => a.platform.startsWith('linux') && a.format === format);
const READ = ['runtime/node', 'bin/glob-network', 'app/package.json', 'app/release.json', 'app/release-public-key.pem', 'app/dist/glob-node.cjs'];

const SYSTEM_TAR = 'tar';
const SMOKE = `console.log('node ' + process.version);
const { getLlama } = await import('node-llama-cpp');
const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false });
console.log('llama.cpp loaded (' + (llama.gpu || 'cpu') + ')');
await import('ipull');
await import('systray2');
console.log('ipull, systray2 loaded');
`;

/** Every file the app loads at run time, relative to the bundle root. */
const LINUX_FILES = [
  'runtime/node',
  'runtime/LICENSE',
  'app/dist/glob-node.cjs',
  'app/dist/launcher.cjs',
  'app/dist/panel/index.html',
  'app/node_modules/node-llama-cpp/package.json',
  'app/node_modules/node-llama-cpp/dist/index.js',
  'app/node_modules/@node-llama-cpp/linux-x64/package.json',
  'app/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node',
  'app/node_modules/@node-llama-cpp/linux-x64-vulkan/bins/linux-x64-vulkan/llama-addon.node',
  'app/node_modules/ipull/package.json',
  'app/node_modules/systray2/index.js',
  'app/node_modules/systray2/traybin/tray_linux_release',
];

/** The bundle as the tar.gz holds it (top folder GlobNetwork/). */
async function checkBundle(entries, prefix, version) {
  for (const f of LINUX_FILES) assert.ok(entries.has(`${prefix}${f}`), `${prefix}${f} is missing`);
  const node = entries.get(`${prefix}runtime/node`);
  assert.deepEqual(elf(node.head), { bits: 64, machine: 0x3e }, 'runtime/node is an x86-64 ELF');
  assert.equal(node.mode, 0o755);
  assert.equal(entries.get(`${prefix}app/node_modules/systray2/traybin/tray_linux_release`).mode, 0o755);
  const launcher = entries.get(`${prefix}bin/glob-network`);
  assert.equal(launcher.mode, 0o755);
  assert.match(launcher.head.toString(), /^#!\/bin\/sh\n/);
  assert.match(launcher.head.toString(), /readlink -f/);
  assert.match(launcher.head.toString(), /exec "\$ROOT\/runtime\/node" "\$ROOT\/app\/dist\/launcher\.cjs" "\$@"/);
  assert.deepEqual(JSON.parse(entries.get(`${prefix}app/package.json`).head), { name: 'glob-network', version, private: true });
  assert.deepEqual(JSON.parse(entries.get(`${prefix}app/release.json`).head), { version, platform: 'linux', arch: 'x64', update_format: 'tar.gz' });
  for (const path of entries.keys()) assert.doesNotMatch(path, /@node-llama-cpp\/[^/]*cuda/, 'no CUDA binaries');
}

test('the tar.gz holds the bundle under GlobNetwork/, with an x86-64 Node.js and the release’s public key', async () => {
  const entries = await tarEntries(
    release.file(asset('tar.gz').name),
    READ.map((p) => `GlobNetwork/${p}`),
    4096,
  );
  for (const path of entries.keys()) assert.match(path, /^GlobNetwork\//);
  await checkBundle(entries, 'GlobNetwork/', v);
  assert.equal(entries.get('GlobNetwork/app/release-public-key.pem').head.toString(), readFileSync(release.file(PUBLIC_KEY), 'utf8'));
});

test('the unpacked tar.gz runs: its Node.js loads the prebuilt llama.cpp and the libraries, bin/glob-network starts the app', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'glob-release-bundle-'));
  try {
    // The system's tar: it unpacks the 300 MB in a third of node-tar's time.
    output(SYSTEM_TAR, ['-xzf', release.file(asset('tar.gz').name), '-C', dir]);
    const root = join(dir, 'GlobNetwork');
    // A file, not -e: node-llama-cpp tests its binary in a forked child, which inherits -e.
    writeFileSync(join(root, 'app', 'smoke.mjs'), SMOKE);
    const smoke = spawnSync(join(root, 'runtime', 'node'), ['smoke.mjs'], { cwd: join(root, 'app'), encoding: 'utf8', timeout: 60_000 });
    assert.equal(smoke.status, 0, smoke.stderr);
    assert.match(smoke.stdout, /^node v26\./m);
    assert.match(smoke.stdout, /^llama\.cpp loaded \(cpu\)$/m);
    assert.match(smoke.stdout, /^ipull, systray2 loaded$/m);
    // The launcher starts the app with its flags (`--help` prints the usage and exits); HOME keeps it out of yours.
    const help = spawnSync(join(root, 'bin', 'glob-network'), ['--help'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: dir } });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: glob-node/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the .deb: its control fields, the bundle in /opt/glob-network, the command, the menu entry, nothing in a home', async () => {
  const deb = release.file(asset('deb').name);
  const info = output('dpkg-deb', ['-f', deb]);
  const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(info)?.[1];
  assert.equal(field('Package'), 'globnetwork');
  assert.equal(field('Version'), v.replace('-', '~'));
  assert.equal(field('Architecture'), 'amd64');
  assert.match(field('Maintainer'), /^Glob Network <.+@.+>$/);
  assert.match(field('Homepage'), /^https:\/\//);
  assert.match(field('Description'), /Glob Network/);
  assert.match(output('dpkg-deb', ['-I', deb]), /Installed-Size: \d+/);

  const listing = output('dpkg-deb', ['-c', deb]);
  assert.match(listing, /^-rwxr-xr-x root\/root .* \.\/opt\/glob-network\/runtime\/node$/m);
  assert.match(listing, /^lrwxrwxrwx root\/root .* \.\/usr\/bin\/glob-network -> \/opt\/glob-network\/bin\/glob-network$/m);

  const desktop = './usr/share/applications/glob-network.desktop';
  const entries = await tarEntries(debDataTar(deb), [...READ.map((p) => `./opt/glob-network/${p}`), desktop], 4096);
  await checkBundle(entries, './opt/glob-network/', v);
  const entry = entries.get(desktop).head.toString();
  assert.match(entry, /^\[Desktop Entry\]$/m);
  assert.match(entry, /^Exec=\/usr\/bin\/glob-network$/m);
  assert.match(entry, /^Icon=glob-network$/m);
  assert.ok(
    [...entries.keys()].some((p) => /^\.\/usr\/share\/icons\/hicolor\/\d+x\d+\/apps\/glob-network\.png$/.test(p)),
    'an icon',
  );
  for (const path of entries.keys()) assert.match(path, /^\.\/($|opt\/|usr\/)/, `${path} is outside /opt and /usr`);
});

test('a second version’s tar.gz builds from the caches, with that version in the app and compiled into the agent', async () => {
  const [, major, minor, patch] = VERSION_PATTERN.exec(v);
  const v2 = `${major}.${minor}.${Number(patch) + 1}`;
  rmSync(join(TEST_RELEASES, v2), { recursive: true, force: true });
  const started = Date.now();
  const out = await buildTestRelease(v2, ['--targets', 'linux-x64', '--formats', 'tar.gz']);
  console.log(`# ${v2}'s tar.gz built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const manifest = JSON.parse(readFileSync(join(out, 'release-manifest.json'), 'utf8'));
  assert.deepEqual(
    manifest.assets.map((a) => a.name),
    [`GlobNetwork-${v2}-linux-x64.tar.gz`],
  );
  const entries = await tarEntries(
    join(out, manifest.assets[0].name),
    READ.map((p) => `GlobNetwork/${p}`),
  );
  await checkBundle(entries, 'GlobNetwork/', v2);
  // rolldown.config.mjs compiles GLOB_AGENT_VERSION into the agent (where node-agent's build supports it).
  if (readFileSync(join(AGENT_DIR, 'rolldown.config.mjs'), 'utf8').includes('GLOB_AGENT_VERSION')) {
    assert.ok(entries.get('GlobNetwork/app/dist/glob-node.cjs').head.includes(JSON.stringify(v2)), `glob-node.cjs is stamped ${v2}`);
  }
});
