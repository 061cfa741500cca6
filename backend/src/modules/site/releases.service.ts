import { Injectable, NotFoundException } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { ReleasesRepository, type Release } from './releases.repository';

export interface NewRelease {
  version: string;
  released_at: string;
  notice?: string | null;
  changelog_url?: string | null;
  assets: Schemas['ReleaseAsset'][];
}

function file(asset: Schemas['ReleaseAsset'] | undefined): Schemas['ReleaseFile'] | undefined {
  return asset && { url: asset.download_url, size: asset.size, name: asset.name };
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
      windows: windows?.download_url ?? null,
      macOS: macos?.download_url ?? null,
      linux: linux?.download_url ?? deb?.download_url ?? null,
    },
    downloads: {
      windows: windows ? { exe: file(windows) } : {},
      macos: macos ? { dmg: file(macos) } : {},
      linux: { ...(linux ? { appimage: file(linux) } : {}), ...(deb ? { deb: file(deb) } : {}) },
    },
    assets: [...release.assets]
      .sort((a, b) => a.platform.localeCompare(b.platform) || a.name.localeCompare(b.name))
      .map((a) => ({ name: a.name, download_url: a.download_url, platform: a.platform, arch: a.arch, size: a.size })),
  };
}

@Injectable()
export class ReleasesService {
  constructor(
    private readonly releases: ReleasesRepository,
    private readonly transactions: Transactions,
  ) {}

  async latest(): Promise<Schemas['Release']> {
    const release = await this.releases.latest();
    if (!release) throw new NotFoundException('Could not fetch latest release information.');
    return toReleaseBody(release);
  }

  /** Adds a release and its files in one transaction (used by `npm run release:publish`). */
  async publish(input: NewRelease): Promise<Schemas['Release']> {
    const release: Release = {
      version: input.version.replace(/^v/, ''),
      releasedAt: new Date(input.released_at),
      notice: input.notice ?? null,
      changelogUrl: input.changelog_url ?? null,
      assets: input.assets,
    };
    await this.transactions.run((tx) => this.releases.insert(release, tx));
    return toReleaseBody(release);
  }
}
