import { describe, expect, it } from '@jest/globals';
import { completeOAuth } from './oauthCallback';

describe('completeOAuth', () => {
  it("answers 'Missing OAuth provider' without a provider", async () => {
    expect(await completeOAuth(undefined, new URLSearchParams('code=1&state=2'))).toEqual({ ok: false, message: 'Missing OAuth provider' });
    expect(await completeOAuth('', new URLSearchParams('code=1&state=2'))).toEqual({ ok: false, message: 'Missing OAuth provider' });
  });

  it('shares one run between callers of the same redirect', () => {
    const search = new URLSearchParams(`code=shared-${Date.now()}&error=denied`);
    expect(completeOAuth('google', search)).toBe(completeOAuth('google', new URLSearchParams(search)));
  });
});
