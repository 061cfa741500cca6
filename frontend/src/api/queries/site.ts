import { queryOptions } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { RELEASE_HOST } from '../../env';
import { FALLBACK_RELEASE, normalizeRelease, type Release } from '../release';
import { api, unwrap } from '../client';

export type DownloadEvent = components['schemas']['DownloadEvent'];
export type ContactMessage = components['schemas']['ContactMessage'];
export type Testimonial = components['schemas']['Testimonial'];

type ReleaseSource = 'release-host' | 'api' | 'site' | 'fallback';

export interface ReleaseResult {
  /** null: a source answered, but no release exists yet. */
  release: Release | null;
  source: ReleaseSource;
}

/** One source of release data: resolves `{ ok, body }`, rejects on network failure. */
type ReleaseFetcher = () => Promise<{ ok: boolean; body: unknown }>;

const RELEASE_TIMEOUT_MS = 6000;

async function fetchJson(url: string): Promise<{ ok: boolean; body: unknown }> {
  const response = await globalThis.fetch(url, {
    headers: { Accept: 'application/json' },
    signal: typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(RELEASE_TIMEOUT_MS) : undefined,
  });
  if (!response.ok) return { ok: false, body: null };
  // A single-page-app server answers unknown files with index.html: not a release.
  const body: unknown = await response.json();
  return { ok: true, body };
}

/** Release data comes from latest.json on the release host, then GET /api/releases/latest, then /latest.json. */
const RELEASE_SOURCES: [Exclude<ReleaseSource, 'fallback'>, ReleaseFetcher][] = [
  ['release-host', () => fetchJson(`${RELEASE_HOST}/latest.json`)],
  [
    'api',
    async () => {
      const { data, response } = await api.GET('/api/releases/latest');
      return { ok: response.ok, body: data ?? null };
    },
  ],
  ['site', () => fetchJson('/latest.json')],
];

/** Tries the sources in order; the first ok response is used; if all fail, the built-in fallback release. */
export async function loadRelease(): Promise<ReleaseResult> {
  for (const [source, fetcher] of RELEASE_SOURCES) {
    try {
      const { ok, body } = await fetcher();
      if (ok) return { release: normalizeRelease(body), source };
    } catch {
      // unreachable, timed out, or not JSON: try the next source
    }
  }
  return { release: FALLBACK_RELEASE, source: 'fallback' };
}

export const siteQueries = {
  all: ['site'] as const,

  /** The newest desktop client release from the first source that answers (see loadRelease); fresh for 5 minutes. */
  release: () =>
    queryOptions({
      queryKey: [...siteQueries.all, 'release', 'resolved'] as const,
      queryFn: loadRelease,
      staleTime: 5 * 60_000,
      retry: false,
    }),
};

/** POST /api/system/analytics/download. */
export function trackDownload(event: DownloadEvent) {
  return unwrap(api.POST('/api/system/analytics/download', { body: event }));
}

/** POST /api/contact/submit. */
export function submitContact(body: ContactMessage) {
  return unwrap(api.POST('/api/contact/submit', { body }));
}

/** POST /api/contact/testimonial (the photo is not sent). */
export function submitTestimonial(body: Testimonial) {
  return unwrap(api.POST('/api/contact/testimonial', { body }));
}
