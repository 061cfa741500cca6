import type { Release } from '../../api/release';

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
