import type { Release, ReleaseAsset } from '../../api/release';

/** The platforms the page can detect; Windows when nothing matches. */
export type Platform = 'windows' | 'macos' | 'linux' | 'android' | 'ios';

export const PLATFORM_LABELS: Record<Platform, string> = {
  windows: 'Windows',
  macos: 'macOS',
  linux: 'Linux',
  android: 'Android',
  ios: 'iOS',
};

interface NavigatorLike {
  userAgent?: string;
  platform?: string;
  maxTouchPoints?: number;
  userAgentData?: { platform?: string };
}

/** Guesses the visitor's OS from the browser; default Windows. */
export function detectPlatform(nav: NavigatorLike | undefined = typeof navigator === 'undefined' ? undefined : navigator): Platform {
  if (!nav) return 'windows';
  const ua = nav.userAgent ?? '';
  const hint = `${nav.userAgentData?.platform ?? ''} ${nav.platform ?? ''}`;
  if (/iPhone|iPad|iPod/i.test(ua) || /iPhone|iPad|iPod/i.test(hint)) return 'ios';
  // iPadOS asks for the desktop site and reports itself as a Mac with a touch screen.
  if (/Macintosh/i.test(ua) && (nav.maxTouchPoints ?? 0) > 1) return 'ios';
  if (/Android/i.test(ua) || /Android/i.test(hint)) return 'android';
  if (/Win/i.test(hint) || /Windows/i.test(ua)) return 'windows';
  if (/Mac/i.test(hint) || /Macintosh|Mac OS X/i.test(ua)) return 'macos';
  if (/Linux|X11|CrOS|Ubuntu|Fedora/i.test(hint) || /Linux|X11|CrOS/i.test(ua)) return 'linux';
  return 'windows';
}

/** A desktop OS's files, best first: what the primary button downloads, then the card's order. */
type Rank = (asset: ReleaseAsset) => number;
const fileRank: Record<'windows' | 'macos' | 'linux', Rank> = {
  // The installer, then the portable zip, then anything else (an older host's .exe).
  windows: (a) => (a.platform !== 'windows' ? -1 : a.format === 'msi' ? 0 : a.format === 'zip' ? 1 : 2),
  // Apple Silicon, then Intel, then a universal build.
  macos: (a) => (a.platform !== 'macos' ? -1 : a.arch === 'arm64' ? 0 : a.arch === 'x64' ? 1 : 2),
  // The .tar.gz (or an older host's AppImage), then the .deb.
  linux: (a) => (a.platform === 'linux-deb' ? 2 : a.platform !== 'linux' ? -1 : a.format === 'tar.gz' ? 0 : 1),
};

/** A card's files in the order it offers them; none for mobile. */
export function platformFiles(release: Release | null | undefined, platform: Platform): ReleaseAsset[] {
  if (!release || (platform !== 'windows' && platform !== 'macos' && platform !== 'linux')) return [];
  const rank = fileRank[platform];
  return release.assets.filter((a) => rank(a) >= 0).sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The file the primary button downloads for a platform, if the release has one (Linux: the .deb first). */
export function assetFor(release: Release | null | undefined, platform: Platform): ReleaseAsset | undefined {
  const files = platformFiles(release, platform);
  return platform === 'linux' ? (files.find((a) => a.platform === 'linux-deb') ?? files[0]) : files[0];
}
