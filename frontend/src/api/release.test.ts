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
  it("carries each file's format and SHA-256 when the source gives them, and drops a malformed checksum", () => {
    const sha = 'ec233a511113438512579899543756ac03b1a201c651e2bc3c501dae2174c260';
    const release = normalizeRelease({
      version: '0.1.0',
      assets: [
        { name: 'a.tar.gz', download_url: 'https://x/a.tar.gz', platform: 'linux', arch: 'x64', format: 'tar.gz', size: 10, sha256: sha },
        { name: 'b.zip', download_url: 'https://x/b.zip', platform: 'macos', arch: 'arm64', size: 10, sha256: 'not-a-sum' },
      ],
    });
    expect(release?.assets).toEqual([
      { name: 'a.tar.gz', download_url: 'https://x/a.tar.gz', platform: 'linux', arch: 'x64', format: 'tar.gz', size: 10, sha256: sha },
      // A format the source leaves out is read from the file's name.
      { name: 'b.zip', download_url: 'https://x/b.zip', platform: 'macos', arch: 'arm64', format: 'zip', size: 10 },
    ]);
  });
  it('reads the release-info shape with its files by kind (msi, zip, arm64, x64, tar_gz, deb), each with its checksum', () => {
    const sha = (n: number) => String(n).repeat(64);
    const file = (name: string, n: number) => ({ url: `https://x/${name}`, name, size: n * 100, sha256: sha(n) });
    const release = normalizeRelease({
      version: '0.1.0',
      direct_links: { windows: 'https://x/w.msi', macOS: 'https://x/m-arm64.zip', linux: 'https://x/l.tar.gz' },
      downloads: {
        windows: { msi: file('w.msi', 1), zip: file('w.zip', 2) },
        macos: { arm64: file('m-arm64.zip', 3), x64: file('m-x64.zip', 4) },
        linux: { tar_gz: file('l.tar.gz', 5), deb: file('l.deb', 6) },
      },
    });
    expect(release?.assets.map((a) => [a.name, a.platform, a.arch, a.format, a.size, a.sha256])).toEqual([
      ['w.msi', 'windows', 'x64', 'msi', 100, sha(1)],
      ['w.zip', 'windows', 'x64', 'zip', 200, sha(2)],
      ['m-arm64.zip', 'macos', 'arm64', 'zip', 300, sha(3)],
      ['m-x64.zip', 'macos', 'x64', 'zip', 400, sha(4)],
      ['l.tar.gz', 'linux', 'x64', 'tar.gz', 500, sha(5)],
      ['l.deb', 'linux-deb', 'x64', 'deb', 600, sha(6)],
    ]);
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
