import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Schemas } from '../../contract/types';
import { Release, ReleaseAsset } from './entities/release.entity';

export interface NewRelease {
  version: string;
  released_at: string;
  notice?: string | null;
  changelog_url?: string | null;
  assets: Schemas['ReleaseAsset'][];
}

function file(asset: ReleaseAsset | undefined): Schemas['ReleaseFile'] | undefined {
  return asset && { url: asset.downloadUrl, size: asset.size, name: asset.name };
}

/** The release as the downloads page reads it: release-info links and the per-file asset list. */
export function toReleaseBody(release: Release): Schemas['Release'] {
  const find = (platform: Schemas['AssetPlatform']) => release.assets.find((a) => a.platform === platform);
  const [windows, macos, linux, deb] = [find('windows'), find('macos'), find('linux'), find('linux-deb')];
  const version = release.version.replace(/^v/, '');
  return {
    version,
    released_at: release.releasedAt.toISOString(),
    is_prerelease: /beta|alpha/i.test(version),
    notice: release.notice,
    changelog_url: release.changelogUrl,
    direct_links: {
      windows: windows?.downloadUrl ?? null,
      macOS: macos?.downloadUrl ?? null,
      linux: linux?.downloadUrl ?? deb?.downloadUrl ?? null,
    },
    downloads: {
      windows: windows ? { exe: file(windows) } : {},
      macos: macos ? { dmg: file(macos) } : {},
      linux: { ...(linux ? { appimage: file(linux) } : {}), ...(deb ? { deb: file(deb) } : {}) },
    },
    assets: [...release.assets]
      .sort((a, b) => a.platform.localeCompare(b.platform) || a.name.localeCompare(b.name))
      .map((a) => ({ name: a.name, download_url: a.downloadUrl, platform: a.platform, arch: a.arch, size: a.size })),
  };
}

@Injectable()
export class ReleasesService {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async latest(): Promise<Schemas['Release']> {
    const release = await this.db.getRepository(Release).findOne({
      where: {},
      relations: { assets: true },
      order: { releasedAt: 'DESC', createdAt: 'DESC' },
    });
    if (!release) throw new NotFoundException('Could not fetch latest release information.');
    return toReleaseBody(release);
  }

  /** Adds a release and its files in one transaction (used by `npm run release:publish`). */
  async publish(input: NewRelease): Promise<Schemas['Release']> {
    return this.db.transaction(async (em) => {
      const release = em.create(Release, {
        version: input.version.replace(/^v/, ''),
        releasedAt: new Date(input.released_at),
        notice: input.notice ?? null,
        changelogUrl: input.changelog_url ?? null,
        assets: input.assets.map((a) =>
          em.create(ReleaseAsset, { name: a.name, downloadUrl: a.download_url, platform: a.platform, arch: a.arch, size: a.size }),
        ),
      });
      const saved = await em.save(release);
      return toReleaseBody(saved);
    });
  }
}
