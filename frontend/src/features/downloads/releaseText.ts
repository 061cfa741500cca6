import type { Release, ReleaseAsset } from '../../api/release';

/** A file size in MB: whole numbers from 100 MB, one decimal below; nothing for an unknown size. */
export function formatSize(bytes: number): string {
  if (!bytes) return '';
  const mb = bytes / (1024 * 1024);
  return mb >= 100 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

export function statusText(loading: boolean, release: Release | null): string {
  if (loading) return 'Loading Release Info...';
  if (!release) return 'Coming Soon';
  return `Latest: v${release.version}${release.is_prerelease ? ' (Beta)' : ''}`;
}

/** A file's extension as people name it: `.tar.gz`, `.deb`, `.AppImage`. */
function extension(asset: ReleaseAsset): string {
  if (asset.format) return `.${asset.format}`;
  const dot = asset.name.lastIndexOf('.');
  return dot > 0 ? asset.name.slice(dot) : '';
}

const MAC_PROCESSORS: Record<ReleaseAsset['arch'], string> = { arm64: 'Apple Silicon', x64: 'Intel', universal: 'Universal' };

/** What a file is, beside its button: 'Installer (.msi)', 'Apple Silicon (.zip)', 'Debian/Ubuntu (.deb)'. */
export function fileKind(asset: ReleaseAsset): string {
  const ext = extension(asset);
  if (asset.platform === 'macos') return `${MAC_PROCESSORS[asset.arch]}${ext ? ` (${ext})` : ''}`;
  if (asset.format === 'msi') return 'Installer (.msi)';
  if (asset.format === 'zip') return 'Portable (.zip)';
  if (asset.format === 'tar.gz') return 'Any distribution (.tar.gz)';
  if (asset.platform === 'linux-deb') return 'Debian/Ubuntu (.deb)';
  return ext || asset.name;
}

/** The button of a card's second file: 'Download .zip', 'Download .deb', on macOS 'Download for Intel'. */
export function otherFileLabel(asset: ReleaseAsset): string {
  return asset.platform === 'macos' ? `Download for ${MAC_PROCESSORS[asset.arch]}` : `Download ${extension(asset) || asset.name}`;
}
