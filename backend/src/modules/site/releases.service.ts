import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sha256File } from '@glob/engine/file-proof';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import {
  parseReleaseManifest,
  RELEASE_FILE_NAME,
  RELEASE_MANIFEST_FILE,
  RELEASE_PUBLIC_KEY_FILE,
  RELEASE_SIGNATURE_FILE,
  RELEASE_VERSION,
} from './release-manifest';
import { ReleasesRepository, type ReleaseFileRecord, type SignedRelease } from './releases.repository';

/** The downloads page shows this when no release comes back; the API answers it with 404. */
const NO_RELEASE = 'Could not fetch latest release information.';
/** A release file that is not one the platform holds. */
export const NO_SUCH_FILE = 'No such release file';

/** What `npm run release:publish` was given. */
export interface PublishRequest {
  /** The release directory `make release` wrote. */
  dir: string;
  /** Link each file as `<baseUrl>/<name>` instead of copying it into RELEASES_DIR. */
  baseUrl?: string;
  /** --public-key: a PEM file. */
  publicKeyFile?: string;
  /** RELEASE_PUBLIC_KEY: PEM text, used when no file is given. */
  publicKeyPem?: string;
}

export interface PublishedRelease {
  version: string;
  /** Which key verified the signature, in words. */
  verifiedWith: string;
  /** True when the key came from the release directory itself. */
  ownKey: boolean;
  assets: Array<{ name: string; size: number; download_url: string; stored: boolean }>;
}

/** The release as the downloads page reads it: release-info links and the per-file asset list. */
function toReleaseBody(release: SignedRelease, urlOf: (asset: ReleaseFileRecord) => string): Schemas['Release'] {
  const find = (platform: Schemas['AssetPlatform'], format: Schemas['AssetFormat'], arch?: Schemas['AssetArch']) =>
    release.assets.find((a) => a.platform === platform && a.format === format && (!arch || a.arch === arch));
  const entry = <K extends string>(key: K, a: ReleaseFileRecord | undefined) =>
    a ? ({ [key]: { url: urlOf(a), size: a.size, name: a.name, sha256: a.sha256 } } as Record<K, Schemas['ReleaseFile']>) : {};
  const msi = find('windows', 'msi');
  const windowsZip = find('windows', 'zip');
  const macArm = find('macos', 'zip', 'arm64');
  const macIntel = find('macos', 'zip', 'x64');
  const macAny = macArm ?? macIntel ?? release.assets.find((a) => a.platform === 'macos');
  const tarGz = find('linux', 'tar.gz');
  const deb = find('linux-deb', 'deb');
  const link = (a: ReleaseFileRecord | undefined) => (a ? urlOf(a) : null);
  return {
    version: release.version,
    released_at: release.releasedAt.toISOString(),
    is_prerelease: /beta|alpha/i.test(release.version),
    notice: release.notice,
    changelog_url: release.changelogUrl,
    changelog: release.changelog,
    direct_links: { windows: link(msi ?? windowsZip), macOS: link(macAny), linux: link(tarGz ?? deb) },
    downloads: {
      windows: { ...entry('msi', msi), ...entry('zip', windowsZip) },
      macos: { ...entry('arm64', macArm), ...entry('x64', macIntel) },
      linux: { ...entry('tar_gz', tarGz), ...entry('deb', deb) },
    },
    assets: release.assets.map((a) => ({
      name: a.name,
      download_url: urlOf(a),
      platform: a.platform,
      arch: a.arch,
      format: a.format,
      size: a.size,
      sha256: a.sha256,
    })),
  };
}

/** Base64 of a 64-byte Ed25519 signature. */
const SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

@Injectable()
export class ReleasesService {
  constructor(
    private readonly releases: ReleasesRepository,
    private readonly transactions: Transactions,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'publicApiUrl' | 'releasesDir'>,
  ) {}

  async latest(): Promise<Schemas['Release']> {
    const release = await this.releases.latestSigned();
    if (!release) throw new NotFoundException(NO_RELEASE);
    return toReleaseBody(release, (a) => this.urlOf(release.version, a));
  }

  async latestManifest(): Promise<Schemas['SignedReleaseManifest']> {
    const release = await this.releases.latestSigned();
    if (!release) throw new NotFoundException(NO_RELEASE);
    return {
      version: release.version,
      manifest: release.manifest,
      signature: release.signature,
      assets: release.assets.map((a) => ({ name: a.name, download_url: this.urlOf(release.version, a) })),
    };
  }

  /** The path of a file the platform holds for a published release; 404 for anything else, a path outside included. */
  async file(version: string, name: string): Promise<string> {
    if (!RELEASE_VERSION.test(version) || !RELEASE_FILE_NAME.test(name)) throw new NotFoundException(NO_SUCH_FILE);
    if (!(await this.releases.holdsFile(version, name))) throw new NotFoundException(NO_SUCH_FILE);
    const path = join(this.config.releasesDir, version, name);
    if (!(await stat(path).catch(() => null))?.isFile()) throw new NotFoundException(NO_SUCH_FILE);
    return path;
  }

  /**
   * Publishes the release in `request.dir`: the manifest's signature must verify, the manifest must be valid, every
   * file present must have the manifest's size and SHA-256 (and be present, unless the files are linked from a base
   * URL). Each checked file is copied into RELEASES_DIR/<version>/ (as `.part`, checked again, then renamed) while the
   * release's rows are inserted in one transaction. Any problem throws before anything is written.
   */
  async publish(request: PublishRequest): Promise<PublishedRelease> {
    const dir = resolve(request.dir);
    const manifestBytes = await readFile(join(dir, RELEASE_MANIFEST_FILE)).catch(() => {
      throw new Error(`${dir} holds no ${RELEASE_MANIFEST_FILE}: give the folder \`make release\` wrote (.data/release/<version>/)`);
    });
    const signatureText = (
      await readFile(join(dir, RELEASE_SIGNATURE_FILE), 'utf8').catch(() => {
        throw new Error(`${dir} holds no ${RELEASE_SIGNATURE_FILE}: an unsigned release is never published`);
      })
    ).trim();
    if (!SIGNATURE.test(signatureText)) throw new Error(`${RELEASE_SIGNATURE_FILE} is not the base64 of an Ed25519 signature`);
    const key = await this.publicKey(request, dir);
    if (!verify(null, manifestBytes, key.key, Buffer.from(signatureText, 'base64'))) {
      throw new Error(`The signature of ${RELEASE_MANIFEST_FILE} does not verify with ${key.from}: nothing was published`);
    }
    const text = manifestBytes.toString('utf8');
    // The stored text must be the signed bytes exactly, or the app could never verify it.
    if (!Buffer.from(text, 'utf8').equals(manifestBytes)) throw new Error(`${RELEASE_MANIFEST_FILE} is not UTF-8 text`);
    const manifest = parseReleaseManifest(text);
    const alreadyPublished = () =>
      new Error(`Version ${manifest.version} is already published: a published release never changes, so publish a new version instead`);
    if (await this.releases.exists(manifest.version)) throw alreadyPublished();
    const baseUrl = request.baseUrl === undefined ? undefined : parseBaseUrl(request.baseUrl);

    const problems: string[] = [];
    for (const asset of manifest.assets) {
      const path = join(dir, asset.name);
      const found = await stat(path).catch(() => null);
      if (!found?.isFile()) {
        if (!baseUrl) problems.push(`${asset.name} is missing from ${dir} (give --base-url to link files hosted elsewhere)`);
      } else if (found.size !== asset.size) {
        problems.push(`${asset.name} has ${found.size} bytes; the manifest says ${asset.size}`);
      } else if ((await sha256File(path)) !== asset.sha256) {
        problems.push(`${asset.name} does not have the manifest's SHA-256 ${asset.sha256}`);
      }
    }
    if (problems.length) throw new Error(`Nothing was published:\n${problems.map((p) => `  ${p}`).join('\n')}`);

    const release: SignedRelease = {
      version: manifest.version,
      releasedAt: new Date(manifest.released_at),
      notice: null,
      changelogUrl: null,
      changelog: manifest.changelog,
      manifest: text,
      signature: signatureText,
      assets: manifest.assets.map((a) => ({ ...a, downloadUrl: baseUrl ? `${baseUrl}/${encodeURIComponent(a.name)}` : null })),
    };
    const target = join(this.config.releasesDir, manifest.version);
    const stored: string[] = [];
    try {
      // The version's row is inserted first: a second publish of the same version waits on it, then fails, before
      // it could touch this one's files.
      await this.transactions.run(async (tx) => {
        await this.releases.insert(release, tx);
        if (baseUrl) return;
        await mkdir(target, { recursive: true });
        for (const asset of manifest.assets) {
          const part = join(target, `${asset.name}.part`);
          await copyFile(join(dir, asset.name), part);
          if ((await sha256File(part)) !== asset.sha256) {
            await rm(part, { force: true });
            throw new Error(`${asset.name} changed while it was copied: nothing was published`);
          }
          await rename(part, join(target, asset.name));
          stored.push(join(target, asset.name));
        }
      });
    } catch (err) {
      for (const path of stored) await rm(path, { force: true });
      if ((err as { code?: string }).code === '23505') throw alreadyPublished();
      throw err;
    }
    return {
      version: release.version,
      verifiedWith: key.from,
      ownKey: key.own,
      assets: release.assets.map((a) => ({ name: a.name, size: a.size, download_url: this.urlOf(release.version, a), stored: !baseUrl })),
    };
  }

  /** A file's URL: its own, or the API's for a file the platform holds (so it follows PUBLIC_API_URL). */
  private urlOf(version: string, asset: ReleaseFileRecord): string {
    return asset.downloadUrl ?? `${this.config.publicApiUrl}/api/releases/files/${encodeURIComponent(version)}/${encodeURIComponent(asset.name)}`;
  }

  /** The key that must verify the signature: --public-key, else RELEASE_PUBLIC_KEY, else the release's own. */
  private async publicKey(request: PublishRequest, dir: string): Promise<{ key: KeyObject; from: string; own: boolean }> {
    let pem: string;
    let from: string;
    if (request.publicKeyFile) {
      from = `--public-key ${resolve(request.publicKeyFile)}`;
      pem = await readFile(resolve(request.publicKeyFile), 'utf8').catch(() => {
        throw new Error(`Cannot read the public key file ${resolve(request.publicKeyFile!)}`);
      });
    } else if (request.publicKeyPem?.trim()) {
      from = 'RELEASE_PUBLIC_KEY';
      pem = request.publicKeyPem;
    } else {
      from = join(dir, RELEASE_PUBLIC_KEY_FILE);
      pem = await readFile(from, 'utf8').catch(() => {
        throw new Error(`No public key: give --public-key FILE, set RELEASE_PUBLIC_KEY, or keep ${RELEASE_PUBLIC_KEY_FILE} in the release folder`);
      });
    }
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch {
      throw new Error(`${from} is not a public key in PEM`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${from} is not an Ed25519 key (releases are signed with Ed25519)`);
    return { key, from, own: !request.publicKeyFile && !request.publicKeyPem?.trim() };
  }
}

/** An http(s) URL without a trailing slash. */
function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--base-url ${value} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`--base-url ${value} is not an http(s) URL`);
  return url.href.replace(/\/+$/, '');
}
