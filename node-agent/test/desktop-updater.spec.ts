/**
 * The installed app's updater against a local release server: a signed manifest and real archives (tar.gz as Linux
 * ships, zip as the macOS .app does). Nothing is unpacked before the signature, the size and the SHA-256 check out.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { c as tarCreate } from 'tar';
import { ZipFile } from 'yazl';
import { readBundle, type ReleaseInfo } from '../src/launcher/bundle';
import { type ReleaseManifest, Updater } from '../src/desktop/updater';
import { writeBundle } from './bundle-fixtures';

const keys = () => generateKeyPairSync('ed25519');
const pem = (k: KeyObject) => k.export({ type: 'spki', format: 'pem' }).toString();
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function tarGz(dir: string, top: string, file: string): Promise<Buffer> {
  await tarCreate({ gzip: true, file, cwd: dir, portable: true }, [top]);
  return readFileSync(file);
}

/** A zip of `files` (path → [content, mode]), as the macOS .app archive is laid out. */
function zip(files: Record<string, [string | Buffer, number]>): Promise<Buffer> {
  const z = new ZipFile();
  for (const [name, [content, mode]] of Object.entries(files)) z.addBuffer(Buffer.from(content), name, { mode });
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

interface Served {
  manifest: string;
  signature: string;
  files: Map<string, Buffer>;
}

describe('the updater', () => {
  let dir: string;
  let server: Server;
  let api: string;
  let served: Served;
  let requests: string[];
  let logs: string[];
  const releaseKey = keys();

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url!);
      if (req.url === '/api/releases/latest/manifest') {
        if (!served.manifest) return res.writeHead(404).end();
        const assets = [...served.files.keys()].map((name) => ({ name, download_url: `${api}/files/${name}` }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ manifest: served.manifest, signature: served.signature, assets }));
      }
      const file = served.files.get(decodeURIComponent(req.url!.replace('/files/', '')));
      if (!file) return res.writeHead(404).end();
      res.writeHead(200, { 'content-length': file.length });
      res.end(file);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'glob-updater-'));
    served = { manifest: '', signature: '', files: new Map() };
    requests = [];
    logs = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const installed = (info: Partial<ReleaseInfo> = {}) =>
    readBundle(writeBundle(join(dir, 'opt'), { version: '0.1.0', ...info }, { publicKey: pem(releaseKey.publicKey) }))!;
  const updater = (bundle = installed()) =>
    Updater.fromHandoff(
      { command: ['glob-network'], started_file: join(dir, 'started'), updates_dir: join(dir, 'updates'), bundle: bundle.root },
      () => api,
      (l) => logs.push(l),
    )!;

  /** Publishes `assets` (name → bytes, with what the manifest says of them), signed with `key`. */
  function publish(
    version: string,
    assets: Array<{ name: string; bytes: Buffer; signed?: Buffer; platform?: string; arch?: string; format?: string }>,
    key = releaseKey.privateKey,
  ) {
    const manifest: ReleaseManifest = {
      schema: 1,
      product: 'glob-network',
      version,
      released_at: '2026-11-28T00:00:00.000Z',
      prerelease: false,
      changelog: '',
      assets: assets.map((a) => ({
        name: a.name,
        platform: (a.platform ?? 'linux') as ReleaseManifest['assets'][number]['platform'],
        arch: (a.arch ?? 'x64') as ReleaseManifest['assets'][number]['arch'],
        format: (a.format ?? 'tar.gz') as ReleaseManifest['assets'][number]['format'],
        size: (a.signed ?? a.bytes).length,
        sha256: sha256(a.signed ?? a.bytes),
      })),
    };
    served.manifest = JSON.stringify(manifest, null, 2);
    served.signature = sign(null, Buffer.from(served.manifest), key).toString('base64');
    served.files = new Map(assets.map((a) => [a.name, a.bytes]));
  }

  /** The Linux asset of `version`: a whole bundle under GlobNetwork/, as make release packs it. */
  async function linuxAsset(version: string, info: Partial<ReleaseInfo> = {}): Promise<Buffer> {
    const build = join(dir, `build-${version}-${Math.random().toString(36).slice(2)}`);
    writeBundle(join(build, 'GlobNetwork'), { version, ...info }, { publicKey: pem(releaseKey.publicKey) });
    return tarGz(build, 'GlobNetwork', join(build, 'asset.tar.gz'));
  }

  const versions = () => (existsSync(join(dir, 'updates', 'versions')) ? readdirSync(join(dir, 'updates', 'versions')) : []);
  const downloads = () => (existsSync(join(dir, 'updates', 'downloads')) ? readdirSync(join(dir, 'updates', 'downloads')) : []);

  it('a newer signed release: its file is downloaded, checked and unpacked as a whole bundle, ready for the next start', async () => {
    publish('0.2.0', [
      { name: 'globnetwork_0.2.0_amd64.deb', bytes: Buffer.from('a deb'), platform: 'linux-deb', format: 'deb' },
      { name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.2.0') },
    ]);
    const u = updater();
    expect(u.snapshot()).toMatchObject({ phase: 'idle', current: '0.1.0' });
    expect(await u.check()).toMatchObject({ phase: 'ready', version: '0.2.0', message: 'Version 0.2.0 starts at the next restart' });
    expect(u.ready).toBe(true);
    const next = readBundle(join(dir, 'updates', 'versions', '0.2.0'));
    expect(next).toMatchObject({ version: '0.2.0', platform: 'linux', arch: 'x64' });
    expect(statSync(join(next!.root, 'runtime', 'node')).mode & 0o111).toBeTruthy();
    // Only its own platform's file was fetched; nothing is left half-way.
    expect(requests.filter((r) => r.startsWith('/files/'))).toEqual(['/files/GlobNetwork-0.2.0-linux-x64.tar.gz']);
    expect(downloads()).toEqual([]);
    expect(versions()).toEqual(['0.2.0']);
    // A second check finds it ready and fetches nothing more.
    await u.check();
    expect(requests.filter((r) => r.startsWith('/files/'))).toHaveLength(1);
  });

  it('a tampered file (same size, one byte changed) is refused before anything is unpacked', async () => {
    const good = await linuxAsset('0.2.0');
    const bad = Buffer.from(good);
    bad[bad.length - 10] = bad[bad.length - 10]! ^ 0xff;
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: bad, signed: good }]);
    const snap = await updater().check();
    expect(snap.phase).toBe('failed');
    expect(snap.message).toMatch(/^Update refused: GlobNetwork-0\.2\.0-linux-x64\.tar\.gz’s SHA-256 is not the one in the signed manifest/);
    expect(versions()).toEqual([]);
    expect(downloads()).toEqual([]);
  });

  it('a file longer than signed is cut off and refused', async () => {
    const good = await linuxAsset('0.2.0');
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: Buffer.concat([good, Buffer.alloc(70_000)]), signed: good }]);
    expect((await updater().check()).message).toMatch(/larger than the signed manifest says/);
    expect(versions()).toEqual([]);
  });

  it('a manifest signed with another key, or changed after signing, is refused and no file is fetched', async () => {
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.2.0') }], keys().privateKey);
    const snap = await updater().check();
    expect(snap).toMatchObject({ phase: 'failed', message: 'Update refused: the release manifest is not signed with Glob Network’s release key' });

    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.2.0') }]);
    served.manifest = served.manifest.replace('"version": "0.2.0"', '"version": "0.3.0"');
    expect((await updater().check()).phase).toBe('failed');
    expect(requests.filter((r) => r.startsWith('/files/'))).toEqual([]);
    expect(logs.join('\n')).toMatch(/Update refused/);
  });

  it('a signed file that holds another version or platform than its manifest says is refused', async () => {
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.1.9') }]);
    expect((await updater().check()).message).toMatch(/does not hold version 0\.2\.0 of this app for linux x64/);
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.2.0', { arch: 'arm64' }) }]);
    expect((await updater().check()).phase).toBe('failed');
    expect(versions()).toEqual([]);
  });

  it('nothing newer, nothing published, a version that failed to start here, no file for this platform: nothing is fetched', async () => {
    expect(await updater().check()).toMatchObject({ phase: 'idle', message: 'No release is published yet' });
    publish('0.1.0', [{ name: 'GlobNetwork-0.1.0-linux-x64.tar.gz', bytes: await linuxAsset('0.1.0') }]);
    expect(await updater().check()).toMatchObject({ phase: 'idle', message: 'Up to date (0.1.0)' });
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-windows-x64.zip', bytes: Buffer.from('zip'), platform: 'windows', format: 'zip' }]);
    expect(await updater().check()).toMatchObject({ phase: 'idle', message: 'Version 0.2.0 has no linux x64 file yet' });
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', bytes: await linuxAsset('0.2.0') }]);
    const updates = join(dir, 'updates');
    mkdirSync(updates, { recursive: true });
    writeFileSync(join(updates, 'launcher.json'), JSON.stringify({ failed: ['0.2.0'] }));
    expect((await updater().check()).message).toBe('Version 0.2.0 did not start on this computer; waiting for a newer one');
    expect(requests.filter((r) => r.startsWith('/files/'))).toEqual([]);
  });

  it('macOS: the .app zip is unpacked from Contents/Resources, with its executables kept executable', async () => {
    const release = { version: '0.2.0', platform: 'macos', arch: 'arm64', update_format: 'zip' };
    const r = 'GlobNetwork.app/Contents/Resources';
    const bytes = await zip({
      'GlobNetwork.app/Contents/Info.plist': ['<plist/>', 0o644],
      'GlobNetwork.app/Contents/MacOS/GlobNetwork': ['#!/bin/sh\n', 0o755],
      [`${r}/runtime/node`]: [`#!/bin/sh\nexec "${process.execPath}" "$@"\n`, 0o755],
      [`${r}/app/release.json`]: [JSON.stringify(release), 0o644],
      [`${r}/app/dist/glob-node.cjs`]: ['', 0o644],
      [`${r}/app/release-public-key.pem`]: [pem(releaseKey.publicKey), 0o644],
    });
    publish('0.2.0', [{ name: 'GlobNetwork-0.2.0-macos-arm64.zip', bytes, platform: 'macos', arch: 'arm64', format: 'zip' }]);
    const snap = await updater(installed({ platform: 'macos', arch: 'arm64', update_format: 'zip' })).check();
    expect(snap).toMatchObject({ phase: 'ready', version: '0.2.0' });
    const root = join(dir, 'updates', 'versions', '0.2.0');
    expect(readBundle(root)).toMatchObject({ platform: 'macos', arch: 'arm64' });
    expect(statSync(join(root, 'runtime', 'node')).mode & 0o777).toBe(0o755);
  });

  it('is off for a bundle without a release key, and for a process no launcher started', () => {
    const bundle = readBundle(writeBundle(join(dir, 'nokey'), { version: '0.1.0' }))!;
    expect(
      Updater.fromHandoff(
        { command: [], started_file: '', updates_dir: join(dir, 'u'), bundle: bundle.root },
        () => api,
        (l) => logs.push(l),
      ),
    ).toBeNull();
    expect(logs.join('\n')).toMatch(/Updates are off/);
    expect(
      Updater.fromHandoff(
        null,
        () => api,
        () => undefined,
      ),
    ).toBeNull();
  });
});
