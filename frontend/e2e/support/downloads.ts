import type { BrowserContext } from '@playwright/test';

/**
 * The mock build's release (the spec's example) links to files the platform would serve; in tests a download tab gets
 * a tiny stand-in answer (the full-stack release.spec fetches the real files).
 */
export async function stubReleaseFiles(context: BrowserContext) {
  await context.route('**/api/releases/files/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'release file stand-in' }),
  );
}
