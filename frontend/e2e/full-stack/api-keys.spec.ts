/**
 * A developer's first API call, end to end on the real platform: a key made in the web app and copied from it calls
 * POST /v1/chat/completions (the in-cluster worker answers with the tiny model), and the key's row shows what it spent.
 */
import { API_KEYS_TEXTS } from '../../src/features/api-keys/texts';
import { formatGlob } from '../../src/components/format';
import { navigate, registerThroughUi, type Person } from '../support/app';
import { expect, test } from '../support/fixtures';
import { uniqueEmail } from '../support/platform';
/** The model the stack's in-cluster worker serves. */
const TINY_MODEL_ID = 'glob-tiny-chat';

/** The tiny model's price per token, in GLOB (its catalog entry). */
const PRICE = 0.125;

// A laptop's width: the keys table fits its card there.
test.use({ viewport: { width: 1440, height: 900 } });

test('a developer creates an API key, copies it, calls /v1/chat/completions with it and sees the usage on the key', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(120_000);
  const dev: Person = { username: 'ada_dev', email: uniqueEmail('ada-dev'), password: 'Analytical-Engine-1843' };
  await registerThroughUi(page, dev);
  await navigate(page, 'API keys');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(API_KEYS_TEXTS.title);
  await expect(page.getByText(API_KEYS_TEXTS.empty)).toBeVisible();

  await page.getByLabel(API_KEYS_TEXTS.nameLabel).fill('my script');
  await page.getByRole('button', { name: API_KEYS_TEXTS.createButton }).click();
  const secret = (await page.getByTestId('api-key-secret').textContent())!;
  expect(secret).toMatch(/^glb_sk_[A-Za-z0-9_-]{32}$/);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: API_KEYS_TEXTS.copy }).click();
  await expect(page.getByText(API_KEYS_TEXTS.copied)).toBeVisible();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toBe(secret);
  // The curl example names this site's /v1 and the new key.
  await expect(page.getByTestId('api-snippet')).toContainText(`${new URL(page.url()).origin}/v1/chat/completions`);
  await expect(page.getByTestId('api-snippet')).toContainText(key);
  await page.getByRole('button', { name: API_KEYS_TEXTS.languages.javascript }).click();
  await page.getByRole('button', { name: API_KEYS_TEXTS.copySnippet }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`baseURL: '${new URL(page.url()).origin}/v1', apiKey: '${key}'`);
  const row = page.getByTestId('api-key-row').filter({ hasText: 'my script' });
  await expect(row.getByTestId('api-key-tokens')).toHaveText('0');
  const table = (await page.locator('.api-keys-table').boundingBox())!;
  const card = (await page.locator('.api-keys-table-wrap').boundingBox())!;
  expect(table.width).toBeLessThanOrEqual(card.width);
  await expect(row.getByRole('button', { name: API_KEYS_TEXTS.revoke })).toBeInViewport({ ratio: 1 });

  const res = await request.post(`${new URL(page.url()).origin}/v1/chat/completions`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Hello from my script' }], max_tokens: 16 },
  });
  expect(res.status()).toBe(200);
  const answer = (await res.json()) as { object: string; usage: { total_tokens: number }; choices: Array<{ message: { content: string } }> };
  expect(answer.object).toBe('chat.completion');
  expect(typeof answer.choices[0]!.message.content).toBe('string');

  // The usage shows on the key's row once the list is read again.
  await page.getByRole('button', { name: API_KEYS_TEXTS.done }).click();
  await page.reload();
  await expect(row.getByTestId('api-key-tokens')).toHaveText(answer.usage.total_tokens.toLocaleString('en-US'));
  await expect(row.getByTestId('api-key-spent')).toHaveText(formatGlob(answer.usage.total_tokens * PRICE));
});
