import type { AssetPlatform, Release, ReleaseAsset } from '../../api/release';

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

/** Which asset platforms serve a detected platform, best first (Linux: AppImage, then DEB). */
const ASSET_PLATFORMS: Record<Platform, AssetPlatform[]> = {
  windows: ['windows'],
  macos: ['macos'],
  linux: ['linux', 'linux-deb'],
  android: [],
  ios: [],
};

/** The file the primary button downloads for a platform, if the release has one. */
export function assetFor(release: Release | null | undefined, platform: Platform): ReleaseAsset | undefined {
  if (!release) return undefined;
  for (const wanted of ASSET_PLATFORMS[platform]) {
    const asset = release.assets.find((a) => a.platform === wanted);
    if (asset) return asset;
  }
  return undefined;
}
