import { parsePublishArgs } from '../../src/modules/site/release-publish.cli';
import { parseReleaseManifest } from '../../src/modules/site/release-manifest';

const SHA = 'ec233a511113438512579899543756ac03b1a201c651e2bc3c501dae2174c260';
const manifest = (over: Record<string, unknown> = {}, asset: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema: 1,
    product: 'glob-network',
    version: '0.2.0',
    released_at: '2026-12-01T10:00:00.000Z',
    prerelease: false,
    changelog: '',
    assets: [{ name: 'GlobNetwork-0.2.0-linux-x64.tar.gz', platform: 'linux', arch: 'x64', format: 'tar.gz', size: 10, sha256: SHA, ...asset }],
    ...over,
  });

describe('release:publish arguments', () => {
  it('reads the folder, --base-url and --public-key relative to where npm was run, and RELEASE_PUBLIC_KEY', () => {
    const env = { INIT_CWD: '/home/me/glob', RELEASE_PUBLIC_KEY: 'PEM' };
    expect(parsePublishArgs(['.data/release/0.2.0', '--base-url', 'https://cdn.example.com/0.2.0', '--public-key', 'keys/release.pem'], env)).toEqual(
      {
        dir: '/home/me/glob/.data/release/0.2.0',
        baseUrl: 'https://cdn.example.com/0.2.0',
        publicKeyFile: '/home/me/glob/keys/release.pem',
        publicKeyPem: 'PEM',
      },
    );
    expect(parsePublishArgs(['/srv/release'], {})).toEqual({
      dir: '/srv/release',
      baseUrl: undefined,
      publicKeyFile: undefined,
      publicKeyPem: undefined,
    });
  });

  it('needs exactly one folder and knows no other option', () => {
    expect(() => parsePublishArgs([], {})).toThrow(/usage: npm run release:publish -- <release dir>/);
    expect(() => parsePublishArgs(['a', 'b'], {})).toThrow(/usage/);
    expect(() => parsePublishArgs(['a', '--version', '1.0.0'], {})).toThrow(/--version/);
  });
});

describe('release manifest', () => {
  it('reads a valid manifest', () => {
    expect(parseReleaseManifest(manifest())).toMatchObject({ version: '0.2.0', prerelease: false, assets: [{ format: 'tar.gz', size: 10 }] });
    expect(parseReleaseManifest(manifest({ version: '0.2.0-beta1', prerelease: true })).prerelease).toBe(true);
  });

  it.each([
    ['text that is not JSON', '{"schema":', /is not JSON/],
    ['another schema', manifest({ schema: 2 }), /schema/],
    ['another product', manifest({ product: 'other' }), /product/],
    ['a version with a leading v', manifest({ version: 'v0.2.0' }), /version: a semantic version/],
    ['a prerelease flag that contradicts the version', manifest({ version: '0.2.0-beta1' }), /prerelease: must be true exactly when/],
    ['no files', manifest({ assets: [] }), /assets/],
    ['a file name with a folder', manifest({}, { name: '../x.tar.gz' }), /assets\.0\.name/],
    ['a hidden file name', manifest({}, { name: '.x' }), /assets\.0\.name/],
    ['an uppercase SHA-256', manifest({}, { sha256: SHA.toUpperCase() }), /assets\.0\.sha256/],
    ['a format its platform does not ship', manifest({}, { format: 'msi' }), /assets\.0\.format/],
    ['an unknown format', manifest({}, { format: 'dmg' }), /assets\.0\.format/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseReleaseManifest(text)).toThrow(message);
  });

  it('refuses two files of one name', () => {
    const twice = JSON.parse(manifest()) as { assets: unknown[] };
    twice.assets.push(twice.assets[0]);
    expect(() => parseReleaseManifest(JSON.stringify(twice))).toThrow(/two files of one name/);
  });
});
