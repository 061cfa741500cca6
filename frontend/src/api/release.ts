import type { components } from '@glob/contract';

export type AssetPlatform = components['schemas']['AssetPlatform'];
export type AssetArch = components['schemas']['AssetArch'];
export type AssetFormat = components['schemas']['AssetFormat'];

/** A release file as the page uses it. */
export interface ReleaseAsset {
  name: string;
  download_url: string;
  platform: AssetPlatform;
  arch: AssetArch;
  /** Bytes (0: not known). */
  size: number;
  /** The kind of file, when the source says it or its name shows it. */
  format?: AssetFormat;
  /** 64 lowercase hex digits, when the source gives it. */
  sha256?: string;
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

/** The built-in release used when every source fails. */
export const FALLBACK_RELEASE: Release = {
  version: '0.1.0-beta3',
  release_date: '2025-06-04',
  is_prerelease: true,
  changelog_url: null,
  // No files: this release's files were never hosted, so its buttons read 'Coming Soon' instead of offering dead links.
  assets: [],
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const PLATFORMS: AssetPlatform[] = ['windows', 'macos', 'linux', 'linux-deb'];
const ARCHES: AssetArch[] = ['x64', 'arm64', 'universal'];
const FORMATS: AssetFormat[] = ['deb', 'tar.gz', 'msi', 'zip'];
const SHA256 = /^[0-9a-f]{64}$/;

function fileName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url.split('/').pop() || url;
  }
}

/** The format a source states, else the one its file name ends with. */
function formatOf(stated: unknown, name: string): AssetFormat | undefined {
  return FORMATS.find((f) => f === stated) ?? FORMATS.find((f) => name.toLowerCase().endsWith(`.${f}`));
}

/** Format and checksum, only when known. */
function details(value: Json | undefined, name: string): Pick<ReleaseAsset, 'format' | 'sha256'> {
  const format = formatOf(value?.format, name);
  const sha256 = typeof value?.sha256 === 'string' && SHA256.test(value.sha256) ? value.sha256 : undefined;
  return { ...(format ? { format } : {}), ...(sha256 ? { sha256 } : {}) };
}

function assetFromList(value: unknown): ReleaseAsset | null {
  if (!isObject(value)) return null;
  const url = str(value.download_url) ?? str(value.browser_download_url) ?? str(value.url);
  const platform = value.platform as AssetPlatform;
  if (!url || !PLATFORMS.includes(platform)) return null;
  const arch = ARCHES.find((a) => a === value.arch) ?? (platform === 'macos' ? 'universal' : 'x64');
  const size = typeof value.size === 'number' && value.size >= 0 ? value.size : 0;
  const name = str(value.name) ?? fileName(url);
  return { name, download_url: url, platform, arch, size, ...details(value, name) };
}

/** Where each `downloads` entry of the release-info shape belongs: the API's keys, then older hosts' (exe, dmg, appimage). */
const RELEASE_INFO_FILES: Array<[group: string, key: string, platform: AssetPlatform, arch: AssetArch]> = [
  ['windows', 'msi', 'windows', 'x64'],
  ['windows', 'zip', 'windows', 'x64'],
  ['windows', 'exe', 'windows', 'x64'],
  ['macos', 'arm64', 'macos', 'arm64'],
  ['macos', 'x64', 'macos', 'x64'],
  ['macos', 'dmg', 'macos', 'universal'],
  ['linux', 'tar_gz', 'linux', 'x64'],
  ['linux', 'appimage', 'linux', 'x64'],
  ['linux', 'deb', 'linux-deb', 'x64'],
];

/** Release-info style (`direct_links` / `downloads`): one asset per file; a direct link stands for a platform without one. */
function assetsFromReleaseInfo(raw: Json): ReleaseAsset[] {
  const downloads = isObject(raw.downloads) ? raw.downloads : {};
  const links = isObject(raw.direct_links) ? raw.direct_links : {};
  const assets: ReleaseAsset[] = [];
  for (const [group, key, platform, arch] of RELEASE_INFO_FILES) {
    const g = downloads[group];
    const file = isObject(g) && isObject(g[key]) ? g[key] : undefined;
    const url = str(file?.url);
    if (!file || !url) continue;
    const name = str(file.name) ?? fileName(url);
    assets.push({ name, download_url: url, platform, arch, size: typeof file.size === 'number' ? file.size : 0, ...details(file, name) });
  }
  const linked = (platform: AssetPlatform, link: unknown) => {
    const url = str(link);
    if (!url || assets.some((a) => a.download_url === url || a.platform === platform)) return;
    const name = fileName(url);
    const arch: AssetArch = /arm64|aarch64/i.test(name) ? 'arm64' : platform === 'macos' && !/x64|x86_64|intel/i.test(name) ? 'universal' : 'x64';
    assets.push({ name, download_url: url, platform, arch, size: 0, ...details(undefined, name) });
  };
  linked('windows', links.windows);
  linked('macos', links.macOS ?? links.macos);
  // A direct linux link that is the .deb belongs to the deb entry.
  const linuxLink = str(links.linux);
  linked(linuxLink?.endsWith('.deb') ? 'linux-deb' : 'linux', linuxLink);
  return assets;
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
