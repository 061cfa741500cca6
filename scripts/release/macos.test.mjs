// The macOS assets of the test release: GlobNetwork.app zipped, for Apple silicon and Intel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machO, testRelease, zipEntries, zipRead } from './test-support.mjs';

const release = await testRelease();
const v = release.version;
const R = 'GlobNetwork.app/Contents/Resources/';

const ARCHES = [
  { arch: 'arm64', cputype: 0x0100000c, binaries: 'mac-arm64-metal' },
  { arch: 'x64', cputype: 0x01000007, binaries: 'mac-x64' },
];

/** The keys of an Info.plist written as <key>K</key> followed by a <string> or a <true/>/<false/>. */
function plist(text) {
  const out = {};
  for (const m of text.matchAll(/<key>([^<]+)<\/key>\s*(?:<string>([^<]*)<\/string>|<(true|false)\/>)/g)) out[m[1]] = m[2] ?? m[3] === 'true';
  return out;
}

for (const { arch, cputype, binaries } of ARCHES) {
  test(`the macOS ${arch} zip holds GlobNetwork.app with its own ${arch} Node.js and every file the app loads`, async () => {
    const zip = release.file(release.manifest.assets.find((a) => a.platform === 'macos' && a.arch === arch).name);
    const entries = await zipEntries(zip);
    for (const name of entries.keys()) assert.match(name, /^GlobNetwork\.app\//);
    for (const f of [
      'GlobNetwork.app/Contents/Info.plist',
      'GlobNetwork.app/Contents/MacOS/GlobNetwork',
      `${R}runtime/node`,
      `${R}runtime/LICENSE`,
      `${R}app/package.json`,
      `${R}app/release.json`,
      `${R}app/release-public-key.pem`,
      `${R}app/dist/glob-node.cjs`,
      `${R}app/dist/launcher.cjs`,
      `${R}app/dist/panel/index.html`,
      `${R}app/node_modules/node-llama-cpp/package.json`,
      `${R}app/node_modules/node-llama-cpp/dist/index.js`,
      `${R}app/node_modules/@node-llama-cpp/${binaries}/package.json`,
      `${R}app/node_modules/@node-llama-cpp/${binaries}/bins/${binaries}/llama-addon.node`,
      `${R}app/node_modules/ipull/package.json`,
      `${R}app/node_modules/systray2/traybin/tray_darwin_release`,
    ]) {
      assert.ok(entries.has(f), `${f} is missing`);
    }
    for (const exe of [
      'GlobNetwork.app/Contents/MacOS/GlobNetwork',
      `${R}runtime/node`,
      `${R}app/node_modules/systray2/traybin/tray_darwin_release`,
    ]) {
      assert.equal(entries.get(exe).mode, 0o755, `${exe} is executable`);
    }
    assert.equal(entries.get('GlobNetwork.app/Contents/Info.plist').mode, 0o644);

    const read = await zipRead(
      zip,
      [`${R}runtime/node`, 'GlobNetwork.app/Contents/Info.plist', 'GlobNetwork.app/Contents/MacOS/GlobNetwork', `${R}app/release.json`],
      4096,
    );
    assert.deepEqual(machO(read.get(`${R}runtime/node`)), { magic: 0xfeedfacf, cputype }, `runtime/node is a 64-bit ${arch} Mach-O`);
    assert.deepEqual(JSON.parse(read.get(`${R}app/release.json`)), { version: v, platform: 'macos', arch, update_format: 'zip' });

    const info = plist(read.get('GlobNetwork.app/Contents/Info.plist').toString());
    assert.equal(info.CFBundleIdentifier, 'network.glob.desktop');
    assert.equal(info.CFBundleExecutable, 'GlobNetwork');
    assert.equal(info.CFBundleShortVersionString, v);
    assert.equal(info.CFBundlePackageType, 'APPL');
    assert.equal(info.LSUIElement, true);
    assert.equal(info.LSMinimumSystemVersion, '13.5', 'Node 26’s minimum macOS');

    const script = read.get('GlobNetwork.app/Contents/MacOS/GlobNetwork').toString();
    assert.match(script, /^#!\/bin\/sh\n/);
    assert.match(script, /exec "\$DIR\/\.\.\/Resources\/runtime\/node" "\$DIR\/\.\.\/Resources\/app\/dist\/launcher\.cjs" desktop "\$@"/);
  });
}
