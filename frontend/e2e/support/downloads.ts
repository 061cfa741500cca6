import type { BrowserContext } from '@playwright/test';

/** The release files live on the release host; in tests a download tab gets a tiny stand-in answer. */
export async function stubReleaseFiles(context: BrowserContext) {
  await context.route('https://releases.globnetwork.io/v*/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/plain', body: 'release file stand-in' }),
  );
}
