import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

/** A published release of the desktop app, with its files. */
export interface Release {
  version: string;
  releasedAt: Date;
  notice: string | null;
  changelogUrl: string | null;
  assets: Schemas['ReleaseAsset'][];
}

interface ReleaseRow {
  id: string;
  version: string;
  released_at: Date;
  notice: string | null;
  changelog_url: string | null;
}

interface AssetRow {
  name: string;
  download_url: string;
  platform: Schemas['AssetPlatform'];
  arch: Schemas['ReleaseAsset']['arch'];
  size: string;
}

/** The releases and release_assets tables. */
@Injectable()
export class ReleasesRepository extends Repository {
  /** The newest release (by release date, then by when it was published). */
  async latest(tx?: Tx): Promise<Release | undefined> {
    const release = await this.one<ReleaseRow>(
      `SELECT id, version, released_at, notice, changelog_url FROM releases ORDER BY released_at DESC, created_at DESC LIMIT 1`,
      [],
      tx,
    );
    if (!release) return undefined;
    const assets = await this.rows<AssetRow>(
      `SELECT name, download_url, platform, arch, size FROM release_assets WHERE release_id = $1`,
      [release.id],
      tx,
    );
    return {
      version: release.version,
      releasedAt: release.released_at,
      notice: release.notice,
      changelogUrl: release.changelog_url,
      assets: assets.map((a) => ({ name: a.name, download_url: a.download_url, platform: a.platform, arch: a.arch, size: Number(a.size) })),
    };
  }

  /** Adds a release and its files. */
  async insert(release: Release, tx: Tx): Promise<void> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO releases (version, released_at, notice, changelog_url) VALUES ($1, $2, $3, $4) RETURNING id`,
      [release.version, release.releasedAt, release.notice, release.changelogUrl],
      tx,
    );
    for (const a of release.assets) {
      await this.rows(
        `INSERT INTO release_assets (release_id, name, download_url, platform, arch, size) VALUES ($1, $2, $3, $4, $5, $6)`,
        [row!.id, a.name, a.download_url, a.platform, a.arch, a.size],
        tx,
      );
    }
  }
}
