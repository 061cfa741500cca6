import { describe, expect, it } from '@jest/globals';
import { normalizeRelease } from './release';

describe('normalizeRelease', () => {
  it('removes a leading v and marks beta/alpha versions as prereleases', () => {
    expect(normalizeRelease({ version: 'v1.0.0-alpha2', assets: [] })).toMatchObject({ version: '1.0.0-alpha2', is_prerelease: true });
    expect(normalizeRelease({ version: '1.0.0', assets: [] })).toMatchObject({ version: '1.0.0', is_prerelease: false });
  });
  it('keeps the asset list of the API shape and drops unknown platforms', () => {
    const release = normalizeRelease({
      version: '0.3.0',
      released_at: '2026-03-01T00:00:00Z',
      assets: [
        { name: 'a.exe', download_url: 'https://x/a.exe', platform: 'windows', arch: 'x64', size: 10 },
        { name: 'a.apk', download_url: 'https://x/a.apk', platform: 'android', arch: 'arm64', size: 10 },
      ],
    });
    expect(release?.assets).toEqual([{ name: 'a.exe', download_url: 'https://x/a.exe', platform: 'windows', arch: 'x64', size: 10 }]);
  });
  it('has no notice when the notice is null or empty', () => {
    expect(normalizeRelease({ version: '1.0.0', notice: null, assets: [] })).not.toHaveProperty('notice');
    expect(normalizeRelease({ version: '1.0.0', notice: '', assets: [] })).not.toHaveProperty('notice');
  });
  it('is null without a version', () => {
    expect(normalizeRelease({})).toBeNull();
    expect(normalizeRelease('nope')).toBeNull();
  });
});
