import { describe, expect, it } from '@jest/globals';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { FALLBACK_RELEASE } from '../release';
import { loadRelease } from './site';

const HOST = 'https://releases.globnetwork.io/latest.json';
const SITE_FILE = 'http://localhost/latest.json';

/** A release host's latest.json: release-info shape, no assets list. */
const releaseInfo = {
  version: 'v0.2.0',
  released_at: '2026-01-15T00:00:00Z',
  notice: 'Windows SmartScreen may warn about the new signing certificate.',
  direct_links: {
    windows: 'https://releases.globnetwork.io/v0.2.0/GlobNetwork-Setup-0.2.0.exe',
    macOS: 'https://releases.globnetwork.io/v0.2.0/GlobNetwork-0.2.0-universal.dmg',
    linux: 'https://releases.globnetwork.io/v0.2.0/GlobNetwork-0.2.0.AppImage',
  },
  downloads: { linux: { deb: { url: 'https://releases.globnetwork.io/v0.2.0/globnetwork_0.2.0_amd64.deb', size: 140000000 } } },
};

function track(order: string[]) {
  return {
    host: (res: () => Response) =>
      plain.get(HOST, () => {
        order.push('release-host');
        return res();
      }),
    api: (res: () => Response) =>
      http.get('/api/releases/latest', ({ response }) => {
        order.push('api');
        return response.untyped(res());
      }),
    site: (res: () => Response) =>
      plain.get(SITE_FILE, () => {
        order.push('site');
        return res();
      }),
  };
}

describe('release fetch order', () => {
  it('uses the release host first when it answers ok', async () => {
    const order: string[] = [];
    const t = track(order);
    server.use(
      t.host(() => HttpResponse.json(releaseInfo)),
      t.api(() => HttpResponse.json({})),
      t.site(() => HttpResponse.json({})),
    );
    const result = await loadRelease();
    expect(order).toEqual(['release-host']);
    expect(result.source).toBe('release-host');
    expect(result.release).toMatchObject({
      version: '0.2.0',
      is_prerelease: false,
      release_date: '2026-01-15T00:00:00Z',
      notice: 'Windows SmartScreen may warn about the new signing certificate.',
    });
    // A file named only by its direct link has no known size (0: the page shows none).
    expect(result.release?.assets.map((a) => [a.platform, a.name, a.size])).toEqual([
      ['linux-deb', 'globnetwork_0.2.0_amd64.deb', 140000000],
      ['windows', 'GlobNetwork-Setup-0.2.0.exe', 0],
      ['macos', 'GlobNetwork-0.2.0-universal.dmg', 0],
      ['linux', 'GlobNetwork-0.2.0.AppImage', 0],
    ]);
  });

  it('goes on to GET /api/releases/latest when the host fails', async () => {
    const order: string[] = [];
    const t = track(order);
    server.use(
      t.host(() => HttpResponse.error()),
      t.api(() => HttpResponse.json(example('/api/releases/latest', 'get', 200))),
      t.site(() => HttpResponse.json(releaseInfo)),
    );
    const result = await loadRelease();
    expect(order).toEqual(['release-host', 'api']);
    expect(result.source).toBe('api');
    expect(result.release?.version).toBe('0.1.0');
    expect(result.release?.is_prerelease).toBe(false);
    expect(result.release?.assets).toHaveLength(6);
    expect(result.release?.assets.every((a) => a.format && /^[0-9a-f]{64}$/.test(a.sha256 ?? ''))).toBe(true);
  });

  it('then /latest.json when the API fails too', async () => {
    const order: string[] = [];
    const t = track(order);
    server.use(
      t.host(() => HttpResponse.json({ message: 'Not Found' }, { status: 404 })),
      t.api(() => HttpResponse.json({ statusCode: 404, message: 'Could not fetch latest release information.' }, { status: 404 })),
      t.site(() => HttpResponse.json(releaseInfo)),
    );
    const result = await loadRelease();
    expect(order).toEqual(['release-host', 'api', 'site']);
    expect(result.source).toBe('site');
    expect(result.release?.version).toBe('0.2.0');
  });

  it('skips an ok answer that is not JSON (a single-page-app fallback page)', async () => {
    const order: string[] = [];
    const t = track(order);
    server.use(
      t.host(() => HttpResponse.error()),
      t.api(() => HttpResponse.json({ message: 'down' }, { status: 503 })),
      t.site(() => HttpResponse.html('<!doctype html><title>Glob Network</title>')),
    );
    const result = await loadRelease();
    expect(order).toEqual(['release-host', 'api', 'site']);
    expect(result).toEqual({ release: FALLBACK_RELEASE, source: 'fallback' });
  });

  it('uses the built-in fallback release when everything fails', async () => {
    const t = track([]);
    server.use(
      t.host(() => HttpResponse.error()),
      t.api(() => HttpResponse.error()),
      t.site(() => HttpResponse.error()),
    );
    const { release, source } = await loadRelease();
    expect(source).toBe('fallback');
    // The documents' fallback version and date, with no files: none of them was ever hosted.
    expect(release).toEqual({ version: '0.1.0-beta3', is_prerelease: true, release_date: '2025-06-04', changelog_url: null, assets: [] });
  });

  it('reports no release when the first ok answer holds none', async () => {
    const t = track([]);
    server.use(t.host(() => HttpResponse.json({ version: null })));
    expect(await loadRelease()).toEqual({ release: null, source: 'release-host' });
  });
});
