/**
 * A rendered reply on the real platform: a conversation whose saved reply holds Markdown (a table, two code blocks)
 * opened by its URL shows the table and highlighted code, and a code block's Copy puts exactly its code on the
 * clipboard; Esc stops a reply the tiny model is writing. The tiny model writes no code fences of its own, so the
 * Markdown reply is saved through the API (POST /api/chat/conversations/{id}/messages) as a client may.
 */
import { REPLY_TEXT } from '../../src/features/assistant/reply-texts';
import { expect, test } from '../support/fixtures';
import { signUpByApi } from '../support/platform';

const PYTHON = 'def square(x):\n    return x * x';
const SHELL = 'npx glob-node --api http://localhost:3000';
const REPLY = [
  'Here is a table and two code blocks.',
  '',
  '| Node | Tokens/s |',
  '|------|---------:|',
  '| a    | 42 |',
  '',
  '```python',
  PYTHON,
  '```',
  '',
  '```bash',
  SHELL,
  '```',
].join('\n');

test('a saved Markdown reply renders its table and code, and Copy code copies one block', async ({ page, request, context }) => {
  const who = await signUpByApi(request);
  const auth = { authorization: `Bearer ${who.accessToken}` };
  const created = await request.post('/api/chat/conversations', { headers: auth, data: { title: 'Code', model_id: 'glob-tiny-chat' } });
  expect(created.status()).toBe(201);
  const { conversation } = (await created.json()) as { conversation: { id: string } };
  for (const message of [
    { role: 'user', content: 'Show me code' },
    { role: 'assistant', content: REPLY },
  ]) {
    const saved = await request.post(`/api/chat/conversations/${conversation.id}/messages`, { headers: auth, data: { message } });
    expect(saved.status()).toBe(201);
  }
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.addInitScript(
    ([access, refresh, user]) => {
      localStorage.setItem('access_token', access!);
      localStorage.setItem('refresh_token', refresh!);
      localStorage.setItem('user', user!);
    },
    [who.accessToken, who.refreshToken, JSON.stringify(who.user)],
  );

  await page.goto(`/app/assistant/${conversation.id}`);
  const reply = page.getByRole('log', { name: 'Messages' }).locator('.assistant-msg.is-assistant');
  await expect(reply.getByRole('table')).toContainText('Tokens/s');
  const blocks = reply.locator('.md-code');
  await expect(blocks).toHaveCount(2);
  await expect(blocks.nth(0).locator('.md-code-lang')).toHaveText('python');
  await expect(blocks.nth(0).locator('.hljs-keyword').first()).toHaveText('def');
  await expect(blocks.nth(1).locator('.md-code-lang')).toHaveText('bash');

  await blocks.nth(1).getByRole('button', { name: REPLY_TEXT.copyCode }).click();
  await expect(blocks.nth(1).getByText(REPLY_TEXT.copied)).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SHELL);
  await blocks.nth(0).getByRole('button', { name: REPLY_TEXT.copyCode }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(PYTHON);

  // Esc stops a reply being written (temperature 0 makes this prompt run on to max_tokens).
  await page.route('**/api/inference/stream/start', (route) => {
    const body = route.request().postDataJSON() as { params?: object };
    return route.continue({ postData: JSON.stringify({ ...body, params: { ...body.params, temperature: 0 } }) });
  });
  await page.getByLabel('Model').selectOption('glob-tiny-chat');
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('A long answer please');
  await input.press('Enter');
  const live = reply.last();
  await expect(live).toHaveAttribute('data-status', 'streaming');
  await expect.poll(async () => ((await live.locator('.assistant-msg-content').textContent()) ?? '').length, { timeout: 20_000 }).toBeGreaterThan(20);
  await page.keyboard.press('Escape');
  await expect(live.getByText(REPLY_TEXT.stopped, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send message' })).toBeVisible();
  // Tokens already on their way arrive until the server's done, which brings the usage: then the text is final.
  await expect(live.locator('.assistant-msg-usage')).toContainText(/\d+ tokens?/);
  const shown = (await live.locator('.assistant-msg-content').textContent()) ?? '';
  await page.reload();
  await expect(
    page.getByRole('log', { name: 'Messages' }).locator('.assistant-msg.is-assistant').last().locator('.assistant-msg-content'),
  ).toHaveText(shown);
});
