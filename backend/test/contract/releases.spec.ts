import { loadSpec } from '../../src/contract/spec';
import { expectSpecResponse, expectSpecSchema, operation } from '../support/contract';
import { startStack, TestStack } from '../support/app';

type Media = Record<string, { example?: unknown; schema?: unknown }>;
type Responses = Record<string, { content?: Media; $ref?: string }>;
const spec = loadSpec() as unknown as { paths: Record<string, { get: { security?: unknown[]; tags: string[]; responses: Responses } }> };
const example = <T>(path: string, status = '200') => spec.paths[path]!.get.responses[status]!.content!['application/json']!.example as T;

interface Asset {
  name: string;
  download_url: string;
  platform: string;
  arch: string;
  format: string;
  size: number;
  sha256: string;
}

describe('contract: the desktop app releases (site tag)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('documents the three release operations as public operations of the site tag', () => {
    expect(operation('getLatestRelease')).toMatchObject({ path: '/api/releases/latest', method: 'get', tag: 'site' });
    expect(operation('getLatestReleaseManifest')).toMatchObject({ path: '/api/releases/latest/manifest', method: 'get', tag: 'site' });
    expect(operation('downloadReleaseFile')).toMatchObject({ path: '/api/releases/files/{version}/{name}', method: 'get', tag: 'site' });
    for (const path of ['/api/releases/latest', '/api/releases/latest/manifest', '/api/releases/files/{version}/{name}']) {
      expect(spec.paths[path]!.get.security).toEqual([]);
    }
    const file = spec.paths['/api/releases/files/{version}/{name}']!.get.responses;
    expect(Object.keys(file['200']!.content!)).toEqual(['application/octet-stream']);
    expect(Object.keys(file['404']!.content!)).toEqual(['application/json']);
  });

  it("the examples agree: the release's six files are the signed manifest's, at the platform's file URLs", () => {
    const release = example<{
      version: string;
      assets: Asset[];
      direct_links: Record<string, string>;
      downloads: { linux: { deb: { url: string } } };
    }>('/api/releases/latest');
    const signed = example<{ version: string; manifest: string; signature: string; assets: Array<{ name: string; download_url: string }> }>(
      '/api/releases/latest/manifest',
    );
    const manifest = JSON.parse(signed.manifest) as { version: string; assets: Array<Omit<Asset, 'download_url'>> };
    expectSpecSchema('ReleaseManifestContent', manifest);
    expect(Buffer.from(signed.signature, 'base64')).toHaveLength(64);
    expect([release.version, signed.version, manifest.version]).toEqual(['0.1.0', '0.1.0', '0.1.0']);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(release.assets.map(({ download_url: _url, ...a }) => a).sort(byName)).toEqual([...manifest.assets].sort(byName));
    expect(signed.assets.sort(byName)).toEqual(release.assets.map((a) => ({ name: a.name, download_url: a.download_url })).sort(byName));
    for (const a of release.assets) expect(a.download_url).toBe(`http://localhost:3000/api/releases/files/0.1.0/${a.name}`);
    const url = (format: string, arch = 'x64') => release.assets.find((a) => a.format === format && a.arch === arch)!.download_url;
    expect(release.direct_links).toEqual({ windows: url('msi'), macOS: url('zip', 'arm64'), linux: url('tar.gz') });
    expect(release.downloads.linux.deb.url).toBe(url('deb'));
  });

  it('answers in the spec when nothing is published: 404 for the release, its manifest and any file', async () => {
    for (const [path, op] of [
      ['/api/releases/latest', 'getLatestRelease'],
      ['/api/releases/latest/manifest', 'getLatestReleaseManifest'],
      ['/api/releases/files/0.1.0/GlobNetwork-0.1.0-linux-x64.tar.gz', 'downloadReleaseFile'],
    ] as const) {
      const res = await stack.http.get(path).expect(404);
      expectSpecResponse(res, op);
    }
  });
});
