import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Response } from 'supertest';
import { ReleasesService, type PublishRequest } from '../../src/modules/site/releases.service';
import { expectSpecResponse } from '../support/contract';
import { startStack, TestStack } from '../support/app';

const REPO = resolve(__dirname, '..', '..', '..');

/** The six files of a release, as `make release` names them. */
const FILES = (v: string) => [
  { name: `globnetwork_${v}_amd64.deb`, platform: 'linux-deb', arch: 'x64', format: 'deb' },
  { name: `GlobNetwork-${v}-linux-x64.tar.gz`, platform: 'linux', arch: 'x64', format: 'tar.gz' },
  { name: `GlobNetwork-${v}-windows-x64.msi`, platform: 'windows', arch: 'x64', format: 'msi' },
  { name: `GlobNetwork-${v}-windows-x64.zip`, platform: 'windows', arch: 'x64', format: 'zip' },
  { name: `GlobNetwork-${v}-macos-arm64.zip`, platform: 'macos', arch: 'arm64', format: 'zip' },
  { name: `GlobNetwork-${v}-macos-x64.zip`, platform: 'macos', arch: 'x64', format: 'zip' },
];

const keyPair = () => generateKeyPairSync('ed25519');
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A release directory as `make release` writes it: small fake files (distinct bytes each), the manifest (pretty JSON,
 * as signed), its signature and the public key.
 */
async function writeRelease(version: string, keys = keyPair(), releasedAt = '2026-11-28T15:00:00.000Z') {
  const dir = await mkdtemp(join(tmpdir(), `glob-release-${version}-`));
  const bytes = new Map<string, Buffer>();
  const assets = [];
  for (const [i, f] of FILES(version).entries()) {
    const data = Buffer.concat([Buffer.from(`${f.name}\n`), Buffer.alloc(1000 + i * 37, i + 1)]);
    bytes.set(f.name, data);
    await writeFile(join(dir, f.name), data);
    assets.push({ ...f, size: data.length, sha256: sha256(data) });
  }
  const manifest = `${JSON.stringify(
    {
      schema: 1,
      product: 'glob-network',
      version,
      released_at: releasedAt,
      prerelease: version.includes('-'),
      changelog: `## ${version}\n\n- Signed builds.\n`,
      assets,
    },
    null,
    2,
  )}\n`;
  await writeFile(join(dir, 'release-manifest.json'), manifest);
  await writeFile(join(dir, 'release-manifest.json.sig'), `${sign(null, Buffer.from(manifest), keys.privateKey).toString('base64')}\n`);
  await writeFile(join(dir, 'release-public-key.pem'), pem(keys.publicKey));
  return { dir, manifest, bytes, keys, assets };
}

describe('releases: signed desktop app releases, published from a release directory and served by the platform', () => {
  let stack: TestStack;
  let releasesDir: string;
  let release: Awaited<ReturnType<typeof writeRelease>>;
  const dirs: string[] = [];
  const publish = (request: PublishRequest) => stack.app.get(ReleasesService).publish(request);
  const rowCount = async () => ((await stack.db.query(`SELECT count(*)::int AS n FROM releases`)) as Array<{ n: number }>)[0]!.n;
  const stored = async (version: string) => (await readdir(join(releasesDir, version)).catch(() => [])).sort();
  /** A file's bytes and headers, as a browser or the app's updater gets them. */
  const download = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.url}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  /** The backend's `release:publish` script, run from the repository root on this stack's database. */
  const cli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; out: string }>((done) => {
      execFile(
        'npm',
        ['run', '--silent', 'release:publish', '-w', 'backend', '--', ...args],
        {
          cwd: REPO,
          env: {
            ...process.env,
            NODE_ENV: 'test',
            DATABASE_URL: stack.config.database.url,
            RELEASES_DIR: releasesDir,
            PUBLIC_API_URL: stack.url,
            ...env,
          },
        },
        (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
      );
    });

  beforeAll(async () => {
    releasesDir = await mkdtemp(join(tmpdir(), 'glob-releases-'));
    stack = await startStack({ env: { RELEASES_DIR: releasesDir, PUBLIC_API_URL: 'https://globnetwork.example' } });
    release = await writeRelease('0.1.0');
    dirs.push(releasesDir, release.dir);
  });
  afterAll(async () => {
    await stack?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('starts with no release (the placeholder of the first migration is gone): 404 with the documents’ message', async () => {
    expect(await rowCount()).toBe(0);
    for (const [path, op] of [
      ['/api/releases/latest', 'getLatestRelease'],
      ['/api/releases/latest/manifest', 'getLatestReleaseManifest'],
    ] as const) {
      const res = await stack.http.get(path).expect(404);
      expectSpecResponse(res, op);
      expect(res.body).toEqual({ statusCode: 404, message: 'Could not fetch latest release information.', error: 'Not Found' });
    }
    // A release may hold two files of one platform and processor (the Windows .msi and .zip): files are unique by name.
    const constraints = (await stack.db.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'release_assets'::regclass AND contype = 'u' ORDER BY conname`,
    )) as Array<{ conname: string }>;
    expect(constraints.map((c) => c.conname)).toEqual(['release_assets_release_id_name_key']);
  });

  it('publishes with the CLI from the repository root (a relative folder), saying which key verified it', async () => {
    const res = await cli([relative(REPO, release.dir)]);
    expect(res.out).toContain(`Signature verified with ${join(release.dir, 'release-public-key.pem')}`);
    expect(res.out).toContain('the release folder’s own key');
    expect(res.out).toContain(`GlobNetwork-0.1.0-linux-x64.tar.gz (${release.bytes.get('GlobNetwork-0.1.0-linux-x64.tar.gz')!.length} bytes) stored`);
    expect(res.out).toContain('Published 0.1.0 with 6 file(s)');
    expect(res.code).toBe(0);
    expect(await stored('0.1.0')).toEqual(
      FILES('0.1.0')
        .map((f) => f.name)
        .sort(),
    );
    for (const [name, bytes] of release.bytes) expect(await readFile(join(releasesDir, '0.1.0', name))).toEqual(bytes);
  }, 60_000);

  it('serves it as the latest release: every file with its size, SHA-256 and kind, at the API’s public URL', async () => {
    const res = await stack.http.get('/api/releases/latest').expect(200);
    expectSpecResponse(res, 'getLatestRelease');
    const url = (name: string) => `https://globnetwork.example/api/releases/files/0.1.0/${name}`;
    expect(res.body).toMatchObject({
      version: '0.1.0',
      released_at: '2026-11-28T15:00:00.000Z',
      is_prerelease: false,
      notice: null,
      changelog_url: null,
      changelog: '## 0.1.0\n\n- Signed builds.\n',
      direct_links: {
        windows: url('GlobNetwork-0.1.0-windows-x64.msi'),
        macOS: url('GlobNetwork-0.1.0-macos-arm64.zip'),
        linux: url('GlobNetwork-0.1.0-linux-x64.tar.gz'),
      },
    });
    const deb = release.assets.find((a) => a.format === 'deb')!;
    expect(res.body.downloads.linux.deb).toEqual({ url: url(deb.name), size: deb.size, name: deb.name, sha256: deb.sha256 });
    expect(Object.keys(res.body.downloads.windows).sort()).toEqual(['msi', 'zip']);
    expect(Object.keys(res.body.downloads.macos).sort()).toEqual(['arm64', 'x64']);
    expect(Object.keys(res.body.downloads.linux).sort()).toEqual(['deb', 'tar_gz']);
    expect([...res.body.assets].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual(
      release.assets.map((a) => ({ ...a, download_url: url(a.name) })).sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it('serves the manifest byte for byte with a signature that verifies with the release key', async () => {
    const res = await stack.http.get('/api/releases/latest/manifest').expect(200);
    expectSpecResponse(res, 'getLatestReleaseManifest');
    expect(res.body.version).toBe('0.1.0');
    expect(res.body.manifest).toBe(release.manifest);
    expect(verify(null, Buffer.from(res.body.manifest), release.keys.publicKey, Buffer.from(res.body.signature, 'base64'))).toBe(true);
    expect(verify(null, Buffer.from(`${res.body.manifest} `), release.keys.publicKey, Buffer.from(res.body.signature, 'base64'))).toBe(false);
    expect(res.body.assets).toHaveLength(6);
    for (const a of res.body.assets as Array<{ name: string; download_url: string }>) {
      expect(a.download_url).toBe(`https://globnetwork.example/api/releases/files/0.1.0/${a.name}`);
    }
  });

  it('streams each file as an attachment with its length, bytes equal to the published ones', async () => {
    for (const [name, bytes] of release.bytes) {
      const res = await download(`/api/releases/files/0.1.0/${name}`, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`);
      expect(res.headers.get('cache-control')).toContain('immutable');
      // Never compressed on the way: the length holds, and so do byte ranges.
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.body.equals(bytes)).toBe(true);
    }
    // A resumed download asks for the rest of the file.
    const name = 'GlobNetwork-0.1.0-linux-x64.tar.gz';
    const part = await download(`/api/releases/files/0.1.0/${name}`, { Range: 'bytes=100-' });
    expect(part.status).toBe(206);
    expect(part.body.equals(release.bytes.get(name)!.subarray(100))).toBe(true);
    const outside = await stack.http.get(`/api/releases/files/0.1.0/${name}`).set('Range', 'bytes=999999-').expect(416);
    expectSpecResponse(outside, 'downloadReleaseFile');
    expect(outside.headers['content-disposition']).toBeUndefined();
    expect(outside.headers['cache-control']).toBeUndefined();
  });

  it('answers 404 for anything but a published file: other names and versions, leftovers and paths outside', async () => {
    // Files beside the published ones that no manifest names: a leftover copy and a stray file.
    await writeFile(join(releasesDir, '0.1.0', 'GlobNetwork-0.1.0-linux-x64.tar.gz.part'), 'partial');
    await writeFile(join(releasesDir, '0.1.0', 'notes.txt'), 'stray');
    await writeFile(join(releasesDir, 'secret.txt'), 'secret');
    const expectNotFound = (res: Response) => {
      expect([res.status, res.body]).toEqual([404, expect.objectContaining({ statusCode: 404 })]);
    };
    for (const path of [
      '/api/releases/files/0.1.0/GlobNetwork-0.1.0-linux-x64.tar.gz.part',
      '/api/releases/files/0.1.0/notes.txt',
      '/api/releases/files/0.2.0/GlobNetwork-0.1.0-linux-x64.tar.gz',
      '/api/releases/files/0.1.0/..%2Fsecret.txt',
      '/api/releases/files/0.1.0/..%2F..%2F..%2Fpackage.json',
      '/api/releases/files/..%2F0.1.0/GlobNetwork-0.1.0-linux-x64.tar.gz',
      '/api/releases/files/../secret.txt',
      '/api/releases/files/0.1.0/..',
      '/api/releases/files/0.1.0/%2Fetc%2Fpasswd',
      '/api/releases/files/0.1.0/.hidden',
      '/api/releases/files/0.1.0/GlobNetwork-0.1.0-linux-x64.tar.gz%00.txt',
      `/api/releases/files/0.1.0/${encodeURIComponent(join(releasesDir, '0.1.0', 'notes.txt'))}`,
    ]) {
      const res = await stack.http.get(path);
      expectNotFound(res);
      if (res.body.message === 'No such release file') expectSpecResponse(res, 'downloadReleaseFile');
    }
  });

  it('refuses a file that does not match its manifest (size or SHA-256): nothing is written', async () => {
    const v = await writeRelease('0.3.0');
    dirs.push(v.dir);
    const [tarGz, msi] = ['GlobNetwork-0.3.0-linux-x64.tar.gz', 'GlobNetwork-0.3.0-windows-x64.msi'];
    const flipped = Buffer.from(v.bytes.get(tarGz)!);
    flipped[10] = flipped[10]! ^ 0xff;
    await writeFile(join(v.dir, tarGz), flipped);
    await writeFile(join(v.dir, msi), Buffer.concat([v.bytes.get(msi)!, Buffer.from('!')]));
    const before = await rowCount();
    const err = (await publish({ dir: v.dir }).catch((e: Error) => e)) as Error;
    expect(err.message).toContain('Nothing was published');
    expect(err.message).toContain(`${tarGz} does not have the manifest's SHA-256`);
    expect(err.message).toContain(`${msi} has ${v.bytes.get(msi)!.length + 1} bytes; the manifest says ${v.bytes.get(msi)!.length}`);
    expect(await rowCount()).toBe(before);
    expect(await stored('0.3.0')).toEqual([]);
  });

  it('refuses a signature that does not verify: another key (--public-key, RELEASE_PUBLIC_KEY) or a changed manifest', async () => {
    const v = await writeRelease('0.4.0');
    dirs.push(v.dir);
    const other = keyPair();
    const otherKeyFile = join(v.dir, '..', `other-${Date.now()}.pem`);
    await writeFile(otherKeyFile, pem(other.publicKey));
    dirs.push(otherKeyFile);
    const before = await rowCount();

    const byFile = await cli([v.dir, '--public-key', otherKeyFile]);
    expect(byFile.code).toBe(1);
    expect(byFile.out).toContain(`The signature of release-manifest.json does not verify with --public-key ${otherKeyFile}: nothing was published`);
    const byEnv = await cli([v.dir], { RELEASE_PUBLIC_KEY: pem(other.publicKey) });
    expect(byEnv.code).toBe(1);
    expect(byEnv.out).toContain('does not verify with RELEASE_PUBLIC_KEY');

    // The right key given explicitly verifies; a manifest changed after signing does not.
    const changed = await mkdtemp(join(tmpdir(), 'glob-release-changed-'));
    dirs.push(changed);
    await cp(v.dir, changed, { recursive: true });
    await writeFile(join(changed, 'release-manifest.json'), v.manifest.replace('Signed builds', 'Unsigned builds'));
    await expect(publish({ dir: changed, publicKeyPem: pem(v.keys.publicKey) })).rejects.toThrow(/does not verify with RELEASE_PUBLIC_KEY/);
    await expect(publish({ dir: v.dir, publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n' })).rejects.toThrow(
      'RELEASE_PUBLIC_KEY is not a public key in PEM',
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    await expect(publish({ dir: v.dir, publicKeyPem: pem(rsa) })).rejects.toThrow('RELEASE_PUBLIC_KEY is not an Ed25519 key');
    expect(await rowCount()).toBe(before);
    expect(await stored('0.4.0')).toEqual([]);

    const ok = await cli([v.dir], { RELEASE_PUBLIC_KEY: pem(v.keys.publicKey) });
    expect(ok.out).toContain('Signature verified with RELEASE_PUBLIC_KEY');
    expect(ok.out).not.toContain('own key');
    expect(ok.code).toBe(0);
  }, 90_000);

  it('refuses to publish a version twice, with a clear message, leaving the first as it was', async () => {
    const again = await writeRelease('0.1.0');
    dirs.push(again.dir);
    await expect(publish({ dir: again.dir })).rejects.toThrow(
      'Version 0.1.0 is already published: a published release never changes, so publish a new version instead',
    );
    const res = await download('/api/releases/files/0.1.0/GlobNetwork-0.1.0-linux-x64.tar.gz');
    expect(res.body.equals(release.bytes.get('GlobNetwork-0.1.0-linux-x64.tar.gz')!)).toBe(true);
  });

  it('refuses a missing file unless --base-url links the files from elsewhere', async () => {
    const v = await writeRelease('0.5.0-beta1', keyPair(), '2026-12-05T09:00:00.000Z');
    dirs.push(v.dir);
    const [msi, tarGz] = ['GlobNetwork-0.5.0-beta1-windows-x64.msi', 'GlobNetwork-0.5.0-beta1-linux-x64.tar.gz'];
    await rm(join(v.dir, msi));
    await expect(publish({ dir: v.dir })).rejects.toThrow(`${msi} is missing from ${v.dir} (give --base-url to link files hosted elsewhere)`);
    expect(await stored('0.5.0-beta1')).toEqual([]);
    // Present files are still checked against the manifest.
    await writeFile(join(v.dir, tarGz), 'not the file');
    await expect(publish({ dir: v.dir, baseUrl: 'https://downloads.example.com/glob/0.5.0-beta1/' })).rejects.toThrow(
      /GlobNetwork-0.5.0-beta1-linux-x64.tar.gz has 12 bytes/,
    );
    await writeFile(join(v.dir, tarGz), v.bytes.get(tarGz)!);
    await expect(publish({ dir: v.dir, baseUrl: 'ftp://downloads.example.com' })).rejects.toThrow(/not an http\(s\) URL/);

    const published = await publish({ dir: v.dir, baseUrl: 'https://downloads.example.com/glob/0.5.0-beta1/' });
    expect(published.assets.every((a) => !a.stored && a.download_url === `https://downloads.example.com/glob/0.5.0-beta1/${a.name}`)).toBe(true);
    expect(await stored('0.5.0-beta1')).toEqual([]);
    const latest = await stack.http.get('/api/releases/latest').expect(200);
    expectSpecResponse(latest, 'getLatestRelease');
    expect(latest.body).toMatchObject({ version: '0.5.0-beta1', is_prerelease: true });
    expect(latest.body.direct_links.windows).toBe(`https://downloads.example.com/glob/0.5.0-beta1/${msi}`);
    const manifest = await stack.http.get('/api/releases/latest/manifest').expect(200);
    expect(manifest.body.manifest).toBe(v.manifest);
    // The platform does not hold linked files.
    expect((await stack.http.get(`/api/releases/files/0.5.0-beta1/${tarGz}`)).status).toBe(404);
  });

  it('keeps in RELEASES_DIR only what was published (and what the tests planted), nothing of the refused releases', async () => {
    expect((await readdir(releasesDir)).sort()).toEqual(['0.1.0', '0.4.0', 'secret.txt']);
    expect(await stored('0.4.0')).toEqual(
      FILES('0.4.0')
        .map((f) => f.name)
        .sort(),
    );
  });
});
