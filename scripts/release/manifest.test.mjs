// The signed manifest of the test release: its fields and order, every asset's size and SHA-256, the signature.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { TARGETS } from './lib/config.mjs';
import { PUBLIC_KEY, SIGNATURE, verifyManifest } from './lib/manifest.mjs';
import { sha256File } from './lib/util.mjs';
import { testRelease } from './test-support.mjs';

const release = await testRelease();
const publicKey = readFileSync(release.file(PUBLIC_KEY), 'utf8');
const signature = readFileSync(release.file(SIGNATURE), 'utf8');

test('the manifest has the contract’s fields, in its order, and every asset of the release', () => {
  const m = release.manifest;
  assert.deepEqual(Object.keys(m), ['schema', 'product', 'version', 'released_at', 'prerelease', 'changelog', 'assets']);
  assert.equal(m.schema, 1);
  assert.equal(m.product, 'glob-network');
  assert.equal(m.version, release.version);
  assert.equal(m.released_at, new Date(m.released_at).toISOString());
  assert.equal(m.prerelease, release.version.includes('-'));
  assert.equal(typeof m.changelog, 'string');
  const v = release.version;
  assert.deepEqual(
    m.assets.map((a) => [a.name, a.platform, a.arch, a.format]),
    [
      [`globnetwork_${v}_amd64.deb`, 'linux-deb', 'x64', 'deb'],
      [`GlobNetwork-${v}-linux-x64.tar.gz`, 'linux', 'x64', 'tar.gz'],
      [`GlobNetwork-${v}-windows-x64.msi`, 'windows', 'x64', 'msi'],
      [`GlobNetwork-${v}-windows-x64.zip`, 'windows', 'x64', 'zip'],
      [`GlobNetwork-${v}-macos-arm64.zip`, 'macos', 'arm64', 'zip'],
      [`GlobNetwork-${v}-macos-x64.zip`, 'macos', 'x64', 'zip'],
    ],
  );
  for (const a of m.assets) assert.deepEqual(Object.keys(a), ['name', 'platform', 'arch', 'format', 'size', 'sha256']);
  assert.equal(
    m.assets.length,
    Object.values(TARGETS).reduce((n, t) => n + t.assets.length, 0),
  );
});

test('every asset’s size and SHA-256 are the file’s', async () => {
  for (const a of release.manifest.assets) {
    assert.equal(a.size, statSync(release.file(a.name)).size, a.name);
    assert.match(a.sha256, /^[0-9a-f]{64}$/);
    assert.equal(a.sha256, await sha256File(release.file(a.name)), a.name);
  }
});

test('the signature is one line of base64 that verifies the manifest’s exact bytes with the release’s public key', () => {
  assert.match(signature, /^[A-Za-z0-9+/]+={0,2}\n$/);
  assert.match(publicKey, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.equal(verifyManifest(Buffer.from(release.manifestText), signature, publicKey), true);
});

test('the signature fails with another key, and after any one byte of the manifest changes', () => {
  const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
  assert.equal(verifyManifest(Buffer.from(release.manifestText), signature, other), false);
  const bytes = Buffer.from(release.manifestText);
  for (const at of [0, bytes.indexOf('"size"') + 9, bytes.length - 2]) {
    const changed = Buffer.from(bytes);
    changed[at] ^= 0x01;
    assert.equal(verifyManifest(changed, signature, publicKey), false, `byte ${at} changed`);
  }
});
