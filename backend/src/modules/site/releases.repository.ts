import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

/** One file of a release. */
export interface ReleaseFileRecord {
  name: string;
  /** Where it is downloaded from; null when the platform holds the file itself (RELEASES_DIR). */
  downloadUrl: string | null;
  platform: Schemas['AssetPlatform'];
  arch: Schemas['AssetArch'];
  format: Schemas['AssetFormat'];
  size: number;
  sha256: string;
}

/** A published release of the desktop app with its signed manifest and its files. */
export interface SignedRelease {
  version: string;
  releasedAt: Date;
  notice: string | null;
  changelogUrl: string | null;
  changelog: string;
  /** The exact text of release-manifest.json, and the base64 of its Ed25519 signature. */
  manifest: string;
  signature: string;
  assets: ReleaseFileRecord[];
}

interface ReleaseRow {
  id: string;
  version: string;
  released_at: Date;
  notice: string | null;
  changelog_url: string | null;
  changelog: string;
  manifest: string;
  signature: string;
}

/** A signed release's file: its sha256 and format are always set (publish writes them). */
interface AssetRow {
  name: string;
  download_url: string | null;
  platform: Schemas['AssetPlatform'];
  arch: Schemas['AssetArch'];
  format: Schemas['AssetFormat'];
  size: string;
  sha256: string;
}

/** The releases and release_assets tables. */
@Injectable()
export class ReleasesRepository extends Repository {
  /**
   * The newest signed release (by release date, then by when it was published). Releases stored without a manifest,
   * before releases were signed, are never served.
   */
  async latestSigned(tx?: Tx): Promise<SignedRelease | undefined> {
    const release = await this.one<ReleaseRow>(
      `SELECT id, version, released_at, notice, changelog_url, changelog, manifest, signature FROM releases
       WHERE manifest IS NOT NULL ORDER BY released_at DESC, created_at DESC LIMIT 1`,
      [],
      tx,
    );
    if (!release) return undefined;
    const assets = await this.rows<AssetRow>(
      `SELECT name, download_url, platform, arch, format, size, sha256 FROM release_assets WHERE release_id = $1 ORDER BY platform, name`,
      [release.id],
      tx,
    );
    return {
      version: release.version,
      releasedAt: release.released_at,
      notice: release.notice,
      changelogUrl: release.changelog_url,
      changelog: release.changelog,
      manifest: release.manifest,
      signature: release.signature,
      assets: assets.map((a) => ({
        name: a.name,
        downloadUrl: a.download_url,
        platform: a.platform,
        arch: a.arch,
        format: a.format,
        size: Number(a.size),
        sha256: a.sha256,
      })),
    };
  }

  /** Whether a release of this version exists, signed or not. */
  async exists(version: string, tx?: Tx): Promise<boolean> {
    return !!(await this.one(`SELECT 1 FROM releases WHERE version = $1`, [version], tx));
  }

  /** Whether the platform holds this file of this signed release (it has no download URL of its own). */
  async holdsFile(version: string, name: string, tx?: Tx): Promise<boolean> {
    const row = await this.one(
      `SELECT 1 FROM release_assets a JOIN releases r ON r.id = a.release_id
       WHERE r.version = $1 AND a.name = $2 AND a.download_url IS NULL AND r.manifest IS NOT NULL`,
      [version, name],
      tx,
    );
    return !!row;
  }

  /** Adds a signed release and its files. */
  async insert(release: SignedRelease, tx: Tx): Promise<void> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO releases (version, released_at, notice, changelog_url, changelog, manifest, signature)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [release.version, release.releasedAt, release.notice, release.changelogUrl, release.changelog, release.manifest, release.signature],
      tx,
    );
    for (const a of release.assets) {
      await this.rows(
        `INSERT INTO release_assets (release_id, name, download_url, platform, arch, format, size, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [row!.id, a.name, a.downloadUrl, a.platform, a.arch, a.format, a.size, a.sha256],
        tx,
      );
    }
  }
}
