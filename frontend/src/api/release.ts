import type { components } from '@glob/contract';
import { RELEASE_HOST } from '../env';

export type AssetPlatform = components['schemas']['AssetPlatform'];

/** A release file as the page uses it. */
export interface ReleaseAsset {
  name: string;
  download_url: string;
  platform: AssetPlatform;
  arch: 'x64' | 'arm64' | 'universal';
  /** Bytes. */
  size: number;
}

/** A release as the page uses it. */
export interface Release {
  /** Without a leading v. */
  version: string;
  release_date: string;
  /** True when the version contains beta or alpha. */
  is_prerelease: boolean;
  changelog_url: string | null;
  assets: ReleaseAsset[];
  notice?: string;
}

/** Shown when no release comes back. */
export const RELEASE_ERROR = 'Could not fetch latest release information.';

/** Fallback file sizes. */
export const FALLBACK_SIZES = { windows: 125829120, macos: 92216776, linux: 139460608 } as const;

const FALLBACK_BASE = `${RELEASE_HOST}/v0.1.0-beta3`;

/** The built-in release used when every source fails. */
export const FALLBACK_RELEASE: Release = {
  version: '0.1.0-beta3',
  release_date: '2025-06-04',
  is_prerelease: true,
  changelog_url: `${FALLBACK_BASE}/CHANGELOG.md`,
  assets: [
    {
      name: 'GlobNetwork-Setup-0.1.0-beta3.exe',
      download_url: `${FALLBACK_BASE}/GlobNetwork-Setup-0.1.0-beta3.exe`,
      platform: 'windows',
      arch: 'x64',
      size: FALLBACK_SIZES.windows,
    },
    {
      name: 'GlobNetwork-0.1.0-beta3-universal.dmg',
      download_url: `${FALLBACK_BASE}/GlobNetwork-0.1.0-beta3-universal.dmg`,
      platform: 'macos',
      arch: 'universal',
      size: FALLBACK_SIZES.macos,
    },
    {
      name: 'GlobNetwork-0.1.0-beta3.AppImage',
      download_url: `${FALLBACK_BASE}/GlobNetwork-0.1.0-beta3.AppImage`,
      platform: 'linux',
      arch: 'x64',
      size: FALLBACK_SIZES.linux,
    },
    {
      name: 'globnetwork_0.1.0-beta3_amd64.deb',
      download_url: `${FALLBACK_BASE}/globnetwork_0.1.0-beta3_amd64.deb`,
      platform: 'linux-deb',
      arch: 'x64',
      size: FALLBACK_SIZES.linux,
    },
  ],
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const PLATFORMS: AssetPlatform[] = ['windows', 'macos', 'linux', 'linux-deb'];
const ARCHES = ['x64', 'arm64', 'universal'] as const;

function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url.split('/').pop() || url;
  }
}

function assetFromList(value: unknown): ReleaseAsset | null {
  if (!isObject(value)) return null;
  const url = str(value.download_url) ?? str(value.browser_download_url) ?? str(value.url);
  const platform = value.platform as AssetPlatform;
  if (!url || !PLATFORMS.includes(platform)) return null;
  const arch = ARCHES.find((a) => a === value.arch) ?? (platform === 'macos' ? 'universal' : 'x64');
  const size = typeof value.size === 'number' && value.size >= 0 ? value.size : 0;
  return { name: str(value.name) ?? fileName(url), download_url: url, platform, arch, size };
}

/** Release-info style (`direct_links` / `downloads`): one asset per platform file. */
function assetsFromReleaseInfo(raw: Json): ReleaseAsset[] {
  const downloads = isObject(raw.downloads) ? raw.downloads : {};
  const links = isObject(raw.direct_links) ? raw.direct_links : {};
  const pick = (group: string, key: string) => {
    const g = downloads[group];
    const f = isObject(g) ? g[key] : undefined;
    return isObject(f) ? f : undefined;
  };
  const make = (platform: AssetPlatform, arch: ReleaseAsset['arch'], file: Json | undefined, link: unknown, size: number): ReleaseAsset | null => {
    const url = str(file?.url) ?? str(link);
    if (!url) return null;
    return {
      name: str(file?.name) ?? fileName(url),
      download_url: url,
      platform,
      arch,
      size: typeof file?.size === 'number' ? file.size : size,
    };
  };
  const appImage = pick('linux', 'appimage');
  const deb = pick('linux', 'deb');
  const linuxLink = str(links.linux);
  return [
    make('windows', 'x64', pick('windows', 'exe'), links.windows, FALLBACK_SIZES.windows),
    make('macos', 'universal', pick('macos', 'dmg'), links.macOS ?? links.macos, FALLBACK_SIZES.macos),
    // A direct linux link that is the .deb belongs to the deb entry, not to the AppImage.
    make('linux', 'x64', appImage, appImage || !linuxLink?.endsWith('.deb') ? linuxLink : undefined, FALLBACK_SIZES.linux),
    make('linux-deb', 'x64', deb, undefined, FALLBACK_SIZES.linux),
  ].filter((a): a is ReleaseAsset => a !== null);
}

/**
 * Reads any of the accepted shapes (the API's Release, a release host's latest.json) into the page's Release.
 * Returns null when the body holds no release (no version).
 */
export function normalizeRelease(raw: unknown): Release | null {
  if (!isObject(raw)) return null;
  const rawVersion = str(raw.version) ?? str(raw.tag_name);
  if (!rawVersion) return null;
  const version = rawVersion.trim().replace(/^v/i, '');
  const assets = Array.isArray(raw.assets) ? raw.assets.map(assetFromList).filter((a): a is ReleaseAsset => a !== null) : assetsFromReleaseInfo(raw);
  const notice = str(raw.notice);
  return {
    version,
    release_date: str(raw.release_date) ?? str(raw.released_at) ?? str(raw.published_at) ?? '',
    is_prerelease: /beta|alpha/i.test(version),
    changelog_url: str(raw.changelog_url) ?? null,
    assets,
    ...(notice ? { notice } : {}),
  };
}
