import { describe, expect, it } from '@jest/globals';
import { assetFor, detectPlatform } from './platform';
import { FALLBACK_RELEASE } from '../../api/release';

const UA = {
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  linux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  android: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
};

describe('OS detection', () => {
  it.each([
    ['windows', UA.windows],
    ['macos', UA.mac],
    ['linux', UA.linux],
    ['android', UA.android],
    ['ios', UA.iphone],
  ])('detects %s', (expected, userAgent) => {
    expect(detectPlatform({ userAgent })).toBe(expected);
  });

  it('treats an iPad asking for the desktop site as iOS', () => {
    expect(detectPlatform({ userAgent: UA.mac, maxTouchPoints: 5 })).toBe('ios');
  });

  it('prefers the client hint platform', () => {
    expect(detectPlatform({ userAgent: 'Mozilla/5.0', userAgentData: { platform: 'macOS' } })).toBe('macos');
  });

  it('defaults to Windows', () => {
    expect(detectPlatform({ userAgent: 'SomeBot/1.0' })).toBe('windows');
    expect(detectPlatform({})).toBe('windows');
  });
});

describe('asset for a platform', () => {
  it('picks the AppImage for Linux before the .deb, and nothing for mobile', () => {
    expect(assetFor(FALLBACK_RELEASE, 'linux')?.name).toBe('GlobNetwork-0.1.0-beta3.AppImage');
    expect(assetFor({ ...FALLBACK_RELEASE, assets: FALLBACK_RELEASE.assets.filter((a) => a.platform === 'linux-deb') }, 'linux')?.platform).toBe(
      'linux-deb',
    );
    expect(assetFor(FALLBACK_RELEASE, 'android')).toBeUndefined();
    expect(assetFor(FALLBACK_RELEASE, 'ios')).toBeUndefined();
    expect(assetFor(null, 'windows')).toBeUndefined();
  });
});
