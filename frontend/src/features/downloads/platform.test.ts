import { describe, expect, it } from '@jest/globals';
import { assetFor, detectPlatform, platformFiles } from './platform';
import { FALLBACK_RELEASE, normalizeRelease } from '../../api/release';
import { example } from '../../mocks/examples';

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

const release = normalizeRelease(example('/api/releases/latest', 'get', 200))!;
const names = (assets: Array<{ name: string }>) => assets.map((a) => a.name);

describe('files of a platform', () => {
  it('the primary button downloads the Windows installer, the Apple Silicon zip and the .deb; nothing for mobile', () => {
    expect(assetFor(release, 'windows')?.name).toBe('GlobNetwork-0.1.0-windows-x64.msi');
    expect(assetFor(release, 'macos')?.name).toBe('GlobNetwork-0.1.0-macos-arm64.zip');
    expect(assetFor(release, 'linux')?.name).toBe('globnetwork_0.1.0_amd64.deb');
    expect(assetFor(release, 'android')).toBeUndefined();
    expect(assetFor(release, 'ios')).toBeUndefined();
    expect(assetFor(null, 'windows')).toBeUndefined();
    expect(assetFor(FALLBACK_RELEASE, 'windows')).toBeUndefined();
  });

  it('takes the next file of the platform when the preferred one is missing', () => {
    const without = (format: string, arch?: string) => ({
      ...release,
      assets: release.assets.filter((a) => a.format !== format || (arch !== undefined && a.arch !== arch)),
    });
    expect(assetFor(without('msi'), 'windows')?.name).toBe('GlobNetwork-0.1.0-windows-x64.zip');
    expect(assetFor(without('zip', 'arm64'), 'macos')?.name).toBe('GlobNetwork-0.1.0-macos-x64.zip');
    expect(assetFor(without('deb'), 'linux')?.name).toBe('GlobNetwork-0.1.0-linux-x64.tar.gz');
  });

  it("lists each card's files in order: installer then zip, Apple Silicon then Intel, .tar.gz then .deb", () => {
    expect(names(platformFiles(release, 'windows'))).toEqual(['GlobNetwork-0.1.0-windows-x64.msi', 'GlobNetwork-0.1.0-windows-x64.zip']);
    expect(names(platformFiles(release, 'macos'))).toEqual(['GlobNetwork-0.1.0-macos-arm64.zip', 'GlobNetwork-0.1.0-macos-x64.zip']);
    expect(names(platformFiles(release, 'linux'))).toEqual(['GlobNetwork-0.1.0-linux-x64.tar.gz', 'globnetwork_0.1.0_amd64.deb']);
    expect(platformFiles(release, 'android')).toEqual([]);
  });

  it("orders an older host's files too: the AppImage before the .deb", () => {
    const older = normalizeRelease({
      version: '0.0.9',
      direct_links: { linux: 'https://x/GlobNetwork.AppImage' },
      downloads: { linux: { deb: { url: 'https://x/globnetwork.deb', size: 1 } } },
    });
    expect(names(platformFiles(older, 'linux'))).toEqual(['GlobNetwork.AppImage', 'globnetwork.deb']);
    expect(assetFor(older, 'linux')?.name).toBe('globnetwork.deb');
  });
});
