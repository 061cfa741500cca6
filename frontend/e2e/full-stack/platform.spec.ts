/**
 * The full-stack platform itself, below the screens: what the journeys stand on. Sign-up by an e-mailed code caught by the
 * test's SMTP server, a reply of the tiny model streamed into the browser as it is generated and stopped mid-stream, and
 * the local OAuth server sending the browser back to the web app's callback route.
 */
import { query } from '../support/db';
import { expect, test } from '../support/fixtures';
import { apiGet, signUpByApi, wallet } from '../support/platform';

interface StreamRead {
  /** Token events seen by each read() of the response body, in order. */
  reads: number[];
  text: string;
  done: { type: string; stop_reason?: string; usage?: { completion_tokens: number } } | null;
  stopStatus: number | null;
}

test('sign-up by e-mailed code, then a reply streams into the browser token by token and stops on request', async ({ page, request }) => {
  const ada = await signUpByApi(request, { username: 'ada' });
  expect(ada.user).toMatchObject({ email: ada.email, username: 'ada', token_balance: 1000 });
  const models = await apiGet<{ models: Array<{ id: string; name: string; status: string }> }>(request, '/api/inference/models', ada.accessToken);
  expect(models.models.find((m) => m.id === 'glob-tiny-chat')).toMatchObject({ name: 'Glob Tiny Chat', status: 'available' });

  await page.goto('/');
  // In the page (same origin, the production CSP), as the web app reads it: fetch + ReadableStream with a bearer header.
  const read = (body: object, stopAfter: number | null) =>
    page.evaluate(
      async ({ token, body, stopAfter }) => {
        const res = await fetch('/api/inference/stream/start', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
        if (!res.ok || !res.body) throw new Error(`stream/start answered ${res.status}`);
        const out: StreamRead = { reads: [], text: '', done: null, stopStatus: null };
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buf = '';
        let tokens = 0;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let seen = 0;
          let idx;
          while ((idx = buf.indexOf('\n\n')) >= 0) {
            const data = /^data: (.*)$/m.exec(buf.slice(0, idx))?.[1];
            buf = buf.slice(idx + 2);
            if (!data) continue;
            const event = JSON.parse(data);
            if (event.type === 'token') {
              out.text += event.text;
              seen += 1;
              tokens += 1;
            } else out.done = event;
          }
          if (seen) out.reads.push(seen);
          if (stopAfter !== null && tokens >= stopAfter && out.stopStatus === null) {
            const stop = await fetch(`/api/inference/stream/${body.streamId}/stop`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}` },
            });
            out.stopStatus = stop.status;
          }
        }
        return out;
      },
      { token: ada.accessToken, body: body as { streamId: string }, stopAfter },
    );

  const params = { temperature: 0, max_tokens: 120, top_p: 0.9 };
  const first = await read({ streamId: `smoke_${Date.now()}_a`, modelId: 'glob-tiny-chat', prompt: 'A long answer please', params }, null);
  expect(first.done).toMatchObject({ type: 'done', stop_reason: 'length', usage: { completion_tokens: 120 } });
  // Tokens arrive over many reads of the body, not in one piece at the end.
  expect(first.reads.length).toBeGreaterThanOrEqual(3);
  expect(first.text.length).toBeGreaterThan(0);

  // A long reply (greedy decoding of this prompt runs to max_tokens), stopped after 30 tokens: the worker aborts it.
  const long = await read(
    { streamId: `smoke_${Date.now()}_b`, modelId: 'glob-tiny-chat', prompt: 'A long answer please', params: { ...params, max_tokens: 2048 } },
    30,
  );
  expect(long.stopStatus).toBe(200);
  expect(long.done).toMatchObject({ type: 'done', stop_reason: 'abort' });
  expect(long.done!.usage!.completion_tokens).toBeLessThan(2048);

  // Both tasks recorded as completed with what was generated, and paid from the welcome bonus.
  const tasks = await query<{ status: string; completion_tokens: number }>(
    'SELECT status, completion_tokens FROM inference_tasks WHERE user_id = $1 ORDER BY created_at',
    [ada.user.id],
  );
  expect(tasks).toEqual([
    { status: 'completed', completion_tokens: 120 },
    { status: 'completed', completion_tokens: long.done!.usage!.completion_tokens },
  ]);
  expect((await wallet(request, ada)).balance).toBeLessThan(1000);
});

test('the local OAuth server (as Google) sends the browser back to /app/oauth/callback/google with a code', async ({ page, request, baseURL }) => {
  const res = await request.get('/api/users/oauth/auth-url/google');
  expect(res.status()).toBe(200);
  const { authorization_url, browser_nonce } = (await res.json()) as { authorization_url: string; browser_nonce: string };
  expect(new URL(authorization_url).searchParams.get('redirect_uri')).toBe(`${baseURL}/app/oauth/callback/google`);
  // The browser that starts a sign-in keeps its nonce (the web app does this before leaving for the provider).
  await page.goto('/app/auth');
  await page.evaluate((nonce) => sessionStorage.setItem('glob_oauth_nonce', nonce), browser_nonce);
  await page.goto(authorization_url);
  await expect(page).toHaveURL(new RegExp(`^${baseURL}/app/oauth/callback/google\\?code=[^&]+&state=`));
  await expect(page.getByRole('heading', { level: 1, name: 'Success!' })).toBeVisible();
});
