/**
 * The installed app's updates: at start, daily, and as soon as the platform refuses this version (NODE_MIN_VERSION),
 * it reads the platform's latest release manifest, checks its Ed25519 signature against the key built into this
 * bundle, downloads this platform's asset, and checks its size and SHA-256 against the signed manifest before
 * anything is unpacked. A verified update is unpacked beside the others (<home>/updates/versions/<version>/); the
 * launcher starts it at the next restart and falls back to the previous version if it does not start.
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import extractZip from 'extract-zip';
import { gt, valid } from 'semver';
import { x as untar } from 'tar';
import { type Bundle, failedVersions, type LauncherHandoff, publicKeyPath, readBundle, type ReleaseInfo, versionsDir } from '../launcher/bundle';
import type { Log } from '../logging';

/** A release's signed manifest (release-manifest.json, as `make release` writes it). */
export interface ReleaseManifest {
  schema: 1;
  product: string;
  version: string;
  released_at: string;
  prerelease: boolean;
  changelog: string;
  assets: ManifestAsset[];
}

export interface ManifestAsset {
  name: string;
  platform: 'linux' | 'linux-deb' | 'windows' | 'macos';
  arch: 'x64' | 'arm64' | 'universal';
  format: 'deb' | 'tar.gz' | 'msi' | 'zip';
  size: number;
  sha256: string;
}

/** The platform's answer to GET /api/releases/latest/manifest. */
export interface SignedManifest {
  manifest: string;
  signature: string;
  assets: { name: string; download_url: string }[];
}

/** A manifest, an asset or an unpacked update that must not be used. */
export class UpdateRefused extends Error {}

const SHA256 = /^[0-9a-f]{64}$/;
/** One asset bigger than this is refused before a byte is written: the largest bundle is about a fifth of it. */
const MAX_ASSET_BYTES = 2 * 1024 ** 3;

/** The manifest, once its signature verifies with `key`; its fields are checked, as anything from outside. */
export function verifyManifest(text: string, signature: string, key: KeyObject): ReleaseManifest {
  let ok: boolean;
  try {
    ok = verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    ok = false;
  }
  if (!ok) throw new UpdateRefused('the release manifest is not signed with Glob Network’s release key');
  let m: Partial<ReleaseManifest>;
  try {
    m = JSON.parse(text) as Partial<ReleaseManifest>;
  } catch {
    throw new UpdateRefused('the release manifest is not JSON');
  }
  const assetOk = (a: Partial<ManifestAsset>) =>
    typeof a.name === 'string' &&
    /^[\w.+-]+$/.test(a.name) &&
    typeof a.size === 'number' &&
    Number.isSafeInteger(a.size) &&
    a.size > 0 &&
    a.size <= MAX_ASSET_BYTES &&
    typeof a.sha256 === 'string' &&
    SHA256.test(a.sha256);
  if (m.schema !== 1 || typeof m.version !== 'string' || !valid(m.version) || !Array.isArray(m.assets) || !m.assets.every(assetOk))
    throw new UpdateRefused('the release manifest is not one this app reads');
  return m as ReleaseManifest;
}

/** The asset this bundle updates itself with: its platform and architecture, in its update format. */
export function assetFor(manifest: ReleaseManifest, me: ReleaseInfo): ManifestAsset | undefined {
  return manifest.assets.find((a) => a.platform === me.platform && a.arch === me.arch && a.format === me.update_format);
}

export type UpdatePhase = 'idle' | 'checking' | 'downloading' | 'ready' | 'failed';

export interface UpdateSnapshot {
  phase: UpdatePhase;
  /** This app's version. */
  current: string;
  /** The version being downloaded, or ready for the next start. */
  version: string | null;
  /** 0–1 while downloading. */
  progress: number | null;
  /** What the last check found, in plain words. */
  message: string | null;
}

export interface UpdaterDeps {
  /** The bundle this process runs from. */
  bundle: Bundle;
  handoff: LauncherHandoff;
  publicKey: KeyObject;
  /** The platform's address; null while none is known. */
  api: () => string | null;
  log: Log;
  fetch?: typeof globalThis.fetch;
}

export class Updater {
  private snap: UpdateSnapshot;
  private running: Promise<UpdateSnapshot> | null = null;

  constructor(private readonly deps: UpdaterDeps) {
    this.snap = { phase: 'idle', current: deps.bundle.version, version: null, progress: null, message: null };
  }

  /** The updater of the bundle a launcher started, with the key built into it; null when not run by a launcher. */
  static fromHandoff(handoff: LauncherHandoff | null, api: () => string | null, log: Log): Updater | null {
    if (!handoff) return null;
    const bundle = readBundle(handoff.bundle);
    if (!bundle) return null;
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(readFileSync(publicKeyPath(bundle.root), 'utf8'));
    } catch {
      log(`Updates are off: ${publicKeyPath(bundle.root)} holds no release key`);
      return null;
    }
    return new Updater({ bundle, handoff, publicKey, api, log });
  }

  snapshot(): UpdateSnapshot {
    return { ...this.snap };
  }

  get ready(): boolean {
    return this.snap.phase === 'ready';
  }

  /** One check at a time; a second call while one runs waits for it. */
  check(): Promise<UpdateSnapshot> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private set(patch: Partial<UpdateSnapshot>): void {
    this.snap = { ...this.snap, ...patch };
  }

  private async run(): Promise<UpdateSnapshot> {
    const api = this.deps.api();
    if (!api) return this.snapshot();
    if (this.snap.phase === 'ready') return this.snapshot();
    this.set({ phase: 'checking', progress: null });
    try {
      const found = await this.find(api);
      if (!found) return this.snapshot();
      await this.fetchAndUnpack(found.manifest, found.asset, found.url);
      this.set({
        phase: 'ready',
        version: found.manifest.version,
        progress: null,
        message: `Version ${found.manifest.version} starts at the next restart`,
      });
      this.deps.log(`Update: version ${found.manifest.version} downloaded and verified; it starts at the next restart`);
    } catch (err) {
      const refused = err instanceof UpdateRefused;
      const message = `${refused ? 'Update refused' : 'Could not update'}: ${err instanceof Error ? err.message : String(err)}`;
      this.set({ phase: 'failed', progress: null, message });
      this.deps.log(message);
    }
    return this.snapshot();
  }

  /** The newer release's asset for this bundle, or null (with the reason in the snapshot). */
  private async find(api: string): Promise<{ manifest: ReleaseManifest; asset: ManifestAsset; url: string } | null> {
    const fetch = this.deps.fetch ?? globalThis.fetch;
    const res = await fetch(new URL('/api/releases/latest/manifest', api), { signal: AbortSignal.timeout(30_000) });
    if (res.status === 404) {
      this.set({ phase: 'idle', message: 'No release is published yet' });
      return null;
    }
    if (!res.ok) throw new Error(`the platform answered ${res.status} for the latest release`);
    const body = (await res.json()) as Partial<SignedManifest>;
    if (typeof body.manifest !== 'string' || typeof body.signature !== 'string') throw new UpdateRefused('the platform sent no signed manifest');
    const manifest = verifyManifest(body.manifest, body.signature, this.deps.publicKey);
    const { bundle } = this.deps;
    if (!gt(manifest.version, bundle.version)) {
      this.set({ phase: 'idle', version: null, message: `Up to date (${bundle.version})` });
      return null;
    }
    if (failedVersions(this.deps.handoff.updates_dir).includes(manifest.version)) {
      this.set({ phase: 'idle', version: null, message: `Version ${manifest.version} did not start on this computer; waiting for a newer one` });
      return null;
    }
    const asset = assetFor(manifest, bundle);
    if (!asset) {
      this.set({ phase: 'idle', version: null, message: `Version ${manifest.version} has no ${bundle.platform} ${bundle.arch} file yet` });
      return null;
    }
    const link = body.assets?.find((a) => a.name === asset.name)?.download_url;
    if (!link) throw new Error(`the platform does not say where ${asset.name} is`);
    return { manifest, asset, url: new URL(link, api).href };
  }

  private async fetchAndUnpack(manifest: ReleaseManifest, asset: ManifestAsset, url: string): Promise<void> {
    const updates = this.deps.handoff.updates_dir;
    const target = join(versionsDir(updates), manifest.version);
    const existing = readBundle(target);
    if (existing?.version === manifest.version) return; // downloaded before (an earlier run)
    this.set({ phase: 'downloading', version: manifest.version, progress: 0, message: null });
    const downloads = join(updates, 'downloads');
    await mkdir(downloads, { recursive: true });
    const file = join(downloads, asset.name);
    try {
      await this.download(url, file, asset);
      const staging = join(versionsDir(updates), `.staging-${manifest.version}`);
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { recursive: true });
      try {
        if (asset.format === 'tar.gz') await untar({ file, cwd: staging, strict: true });
        else await extractZip(file, { dir: staging });
        const root = await bundleRoot(staging);
        const unpacked = root && readBundle(root);
        const { bundle } = this.deps;
        if (!unpacked || unpacked.version !== manifest.version || unpacked.platform !== bundle.platform || unpacked.arch !== bundle.arch)
          throw new UpdateRefused(`${asset.name} does not hold version ${manifest.version} of this app for ${bundle.platform} ${bundle.arch}`);
        await rm(target, { recursive: true, force: true });
        await rename(unpacked.root, target);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    } finally {
      await rm(file, { force: true });
      await rm(`${file}.part`, { force: true });
    }
  }

  /** Streams the asset to disk, hashing as it goes; refused on a byte more than signed, or a different size or hash. */
  private async download(url: string, file: string, asset: ManifestAsset): Promise<void> {
    const fetch = this.deps.fetch ?? globalThis.fetch;
    const res = await fetch(url);
    if (!res.ok || !res.body) throw new Error(`${asset.name}: the download answered ${res.status}`);
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        bytes += chunk.length;
        if (bytes > asset.size) return done(new UpdateRefused(`${asset.name} is larger than the signed manifest says (${asset.size} bytes)`));
        hash.update(chunk);
        this.set({ progress: bytes / asset.size });
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), meter, createWriteStream(`${file}.part`));
    if (bytes !== asset.size) throw new UpdateRefused(`${asset.name} has ${bytes} bytes where the signed manifest says ${asset.size}`);
    if (hash.digest('hex') !== asset.sha256) throw new UpdateRefused(`${asset.name}’s SHA-256 is not the one in the signed manifest`);
    await rename(`${file}.part`, file);
  }
}

/** Where the bundle is inside an unpacked asset: GlobNetwork/ (tar.gz, Windows zip) or GlobNetwork.app/Contents/Resources/. */
async function bundleRoot(dir: string): Promise<string | null> {
  for (const entry of await readdir(dir)) {
    for (const inner of [join(dir, entry), join(dir, entry, 'Contents', 'Resources')]) {
      if (existsSync(join(inner, 'app', 'release.json')) && (await stat(inner)).isDirectory()) return inner;
    }
  }
  return null;
}
