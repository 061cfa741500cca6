import { parseReleaseArgs } from '../../src/modules/site/release-publish.cli';

describe('release:publish arguments', () => {
  it('reads a release from flags', () => {
    const r = parseReleaseArgs([
      '--version',
      'v0.2.0',
      '--date',
      '2026-12-01',
      '--notice',
      'Signed builds',
      '--asset',
      'GlobNetwork-Setup-0.2.0.exe|windows|x64|130000000|https://releases.globnetwork.io/v0.2.0/GlobNetwork-Setup-0.2.0.exe',
    ]);
    expect(r).toMatchObject({ version: 'v0.2.0', released_at: '2026-12-01', notice: 'Signed builds' });
    expect(r.assets).toEqual([
      {
        name: 'GlobNetwork-Setup-0.2.0.exe',
        platform: 'windows',
        arch: 'x64',
        size: 130000000,
        download_url: 'https://releases.globnetwork.io/v0.2.0/GlobNetwork-Setup-0.2.0.exe',
      },
    ]);
  });

  it('refuses a release without files, with a bad version or an unknown platform', () => {
    expect(() => parseReleaseArgs(['--version', '0.2.0'])).toThrow(/assets/);
    expect(() => parseReleaseArgs(['--version', 'latest', '--asset', 'a|windows|x64|1|https://x.test/a'])).toThrow(/version/);
    expect(() => parseReleaseArgs(['--version', '0.2.0', '--asset', 'a|android|x64|1|https://x.test/a'])).toThrow(/platform/);
  });
});
