import { describe, expect, it } from '@jest/globals';
import { HttpResponse, http as plain } from 'msw';
import { server } from '../mocks/node';
import { http } from '../mocks/http';
import { api, unwrap } from './client';
import { ApiError, failureText } from './errors';

const badGateway = { status: 502, statusText: 'Bad Gateway' };

/** The failure a real call ends in, so the rule is checked on what the client throws. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded');
}

describe('failureText', () => {
  it("shows the server's own text when it sent one", async () => {
    server.use(
      http.post('/api/users/login', ({ response }) => response(401).json({ statusCode: 401, message: 'Invalid credentials', error: 'Unauthorized' })),
    );
    const err = await failureOf(unwrap(api.POST('/api/users/login', { body: { email: 'a@b.co', password: 'secret123' } })));
    expect(err).toBeInstanceOf(ApiError);
    expect(failureText(err, 'Something went wrong', 'Offline')).toBe('Invalid credentials');
  });

  it("else the server's error field, then the caller's fallback", () => {
    expect(failureText(new ApiError({ error: 'Forbidden' }, { status: 403, statusText: 'Forbidden' }), 'Fallback')).toBe('Forbidden');
    expect(failureText(new ApiError('<html>proxy</html>', badGateway), 'Fallback', 'Offline')).toBe('Fallback');
    expect(failureText(new ApiError({ message: '   ' }, badGateway), 'Fallback')).toBe('Fallback');
  });

  it('shows the HTTP status line when the caller has no fallback', () => {
    expect(failureText(new ApiError(null, badGateway), undefined, 'Offline')).toBe('HTTP 502: Bad Gateway');
  });

  it('shows the network text when no answer came, else the fallback', async () => {
    server.use(plain.get('http://localhost/api/stats/platform', () => HttpResponse.error()));
    const err = await failureOf(unwrap(api.GET('/api/stats/platform')));
    expect(err).not.toBeInstanceOf(ApiError);
    expect(failureText(err, 'Fallback', 'Offline')).toBe('Offline');
    expect(failureText(err, 'Fallback')).toBe('Fallback');
  });
});
