/**
 * The web app end to end on the real platform (stack.mjs: the production API serving the build, a worker
 * running the tiny model, the test's own SMTP server). One person's whole life in the app, in order: sign-up by the
 * e-mailed code, the welcome bonus, a streamed reply, a stopped reply, the conversation sidebar, a package purchase, a
 * transfer to a second account, logout, account deletion by code, and signing up again with the same address (no second bonus).
 */
import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { formatGlob } from '../../src/components/format';
import { REPLY_TEXT, SETTINGS_TEXT } from '../../src/features/assistant/reply-texts';
import { navigate, recordReplyGrowth, registerThroughUi, statValue, topBarBalance, transactions, type Person } from '../support/app';
import { query } from '../support/db';
import { expect, test } from '../support/fixtures';
import { codeFor, mailMark, signUpByApi, uniqueEmail, wallet } from '../support/platform';

/** The signed-in session the web app keeps, to ask the API what the screens should show. */
async function session(page: Page) {
  return page.evaluate(() => ({
    token: localStorage.getItem('access_token') ?? '',
    user: JSON.parse(localStorage.getItem('user') ?? 'null') as { id: string } | null,
  }));
}

async function balanceOf(page: Page, request: APIRequestContext): Promise<{ balance: number; address: string }> {
  const { token, user } = await session(page);
  const res = await request.get(`/api/wallet/${user!.id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(200);
  return (await res.json()) as { balance: number; address: string };
}

const PROMPT = 'A long answer please';

/**
 * For the next `times` replies, changes only these sampling parameters of the real stream/start request; answers the
 * bodies the UI sent (filled in as the requests go out).
 */
async function overrideParams(page: Page, params: Record<string, number>, times: number) {
  const sent: Array<{ params?: Record<string, number> }> = [];
  await page.route(
    '**/api/inference/stream/start',
    async (route) => {
      const body = route.request().postDataJSON() as { params?: Record<string, number> };
      sent.push(body);
      await route.continue({ postData: JSON.stringify({ ...body, params: { ...body.params, ...params } }) });
    },
    { times },
  );
  return sent;
}
const SYSTEM_PROMPT = 'You answer like a ship’s log.';

test('the web app, end to end on the real platform', async ({ page, request }) => {
  test.setTimeout(240_000);
  const ada: Person = { username: 'ada_lovelace', email: uniqueEmail('ada'), password: 'Analytical-Engine-1843' };

  await test.step('sign up at /app/auth with the e-mailed code; the dashboard shows the welcome bonus', async () => {
    await registerThroughUi(page, ada);
    await expect(page.getByText(`Welcome back, ${ada.username}!`)).toBeVisible();
    await expect(statValue(page, 'Token Balance')).toHaveText('1,000');
    await expect(topBarBalance(page)).toHaveText('1,000 GLOB');
    await expect(page.locator('.app-welcome')).toHaveText(`Welcome back, ${ada.username}`);
  });

  let firstReply = '';
  await test.step('assistant: the tiny model, and a reply that streams in token by token', async () => {
    await navigate(page, 'AI Assistant');
    await expect(page).toHaveURL(/\/app\/assistant$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('AI Assistant');
    await expect(page.getByText('Tokens used: 0 • Cost: $0.0000')).toBeVisible();
    const model = page.getByLabel('Model');
    // Only the tiny model has a worker: the four big ones are listed but cannot be chosen.
    await expect(model.locator('option[value="llama-3.3-70b-instruct"]')).toBeDisabled();
    await model.selectOption('glob-tiny-chat');
    await expect(model.locator('option:checked')).toHaveText(/^Glob Tiny Chat · 2M · 2,048 context · available/);
    await expect(page.getByText('Using Glob Tiny Chat')).toBeVisible();

    // At the default temperature 0.7 the tiny model sometimes answers in a couple of words, too short to watch it
    // stream; at temperature 0 this prompt runs on, so 200 tokens make a reply of a known length. Only those two
    // parameters of the real request are changed (the UI's own values are checked below).
    const sent = await overrideParams(page, { temperature: 0, max_tokens: 200 }, 1);
    const growth = await recordReplyGrowth(page);
    const input = page.getByRole('textbox', { name: 'Message' });
    await expect(input).toHaveAttribute('placeholder', 'Type your message...');
    await input.fill(PROMPT);
    await input.press('Enter');
    const log = page.getByRole('log', { name: 'Messages' });
    await expect(log.locator('.assistant-msg.is-user').last()).toContainText(PROMPT);
    const reply = log.locator('.assistant-msg.is-assistant').last();
    await expect(reply).toHaveAttribute('data-status', 'sent', { timeout: 30_000 });
    await expect(reply.getByText('Generating...')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Send message' })).toBeVisible();

    // The UI sends no parameters of its own: the server applies the conversation's saved settings.
    expect(sent[0]?.params).toBeUndefined();
    // The text grew across renders while the bubble was streaming: at least three distinct, increasing lengths.
    const { samples } = await growth();
    const streamed = samples.filter((s) => s.streaming && s.length > 0).map((s) => s.length);
    expect(new Set(streamed).size, `lengths seen while streaming: ${streamed.join(', ')}`).toBeGreaterThanOrEqual(3);
    expect(streamed).toEqual([...streamed].sort((a, b) => a - b));
    firstReply = (await reply.locator('.assistant-msg-content').textContent()) ?? '';
    expect(firstReply.length).toBeGreaterThan(streamed[0]!);
    // After 'done': tokens used and the model on the reply, the conversation's total in the header.
    await expect(reply.locator('.assistant-msg-usage')).toHaveText(/^\d+ tokens.*Glob Tiny Chat$/);
    await expect(page.getByText(/^Tokens used: [1-9]\d* • Cost: \$0\.\d{4}$/)).toBeVisible();
    // The conversation was created by the first message, titled 'Chat {date}' in the app's date format ('Chat Nov 25, 2026').
    await expect(page.locator('.conv-item .conv-title').first()).toHaveText(/^Chat [A-Z][a-z]{2} \d{1,2}, \d{4}$/);
  });

  await test.step("a second message, stopped mid-stream with 'Stop generation'", async () => {
    // The conversation's temperature is 0.7; this prompt at temperature 0 makes the tiny model run on to max_tokens (2048,
    // several seconds), which is what a mid-stream stop needs. Only that parameter of the real request is changed.
    await overrideParams(page, { temperature: 0 }, 1);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(PROMPT);
    await input.press('Enter');
    const reply = page.getByRole('log', { name: 'Messages' }).locator('.assistant-msg.is-assistant').nth(-1);
    await expect(reply).toHaveAttribute('data-status', 'streaming');
    await expect(reply.getByText('Generating...')).toBeVisible();
    await expect(input).toBeDisabled();
    const text = reply.locator('.assistant-msg-content');
    await expect.poll(async () => ((await text.textContent()) ?? '').length, { timeout: 20_000 }).toBeGreaterThan(40);
    await page.getByRole('button', { name: 'Stop generation' }).click();

    await expect(page.getByRole('button', { name: 'Send message' })).toBeVisible();
    await expect(reply).toHaveAttribute('data-status', 'sent');
    await expect(reply.getByText('Generating...')).toHaveCount(0);
    await expect(input).toBeEnabled();
    await expect(reply.getByText(REPLY_TEXT.stopped, { exact: true })).toBeVisible();
    // What was generated until the stop reached the worker still arrives; the server's done ends it (usage shown).
    await expect(reply.locator('.assistant-msg-usage')).toContainText(/\d+ tokens?/);
    const stoppedAt = (await text.textContent()) ?? '';
    await page.waitForTimeout(1500);
    expect(await text.textContent(), 'the reply stops growing').toBe(stoppedAt);
    // Saved as shown: after a reload, the same text, still marked stopped.
    await page.reload();
    const saved = page.getByRole('log', { name: 'Messages' }).locator('.assistant-msg.is-assistant').nth(-1);
    await expect(saved.locator('.assistant-msg-content')).toHaveText(stoppedAt);
    await expect(saved.getByText(REPLY_TEXT.stopped, { exact: true })).toBeVisible();
    // The worker really stopped: the saved reply is far from the 2048 tokens this prompt runs to.
    const [task] = await query<{ completion_tokens: number; status: string }>(
      `SELECT t.completion_tokens, t.status FROM inference_tasks t JOIN users u ON u.id = t.user_id
       WHERE u.email = $1 ORDER BY t.created_at DESC LIMIT 1`,
      [ada.email],
    );
    expect(task!.status).toBe('completed');
    expect(task!.completion_tokens).toBeLessThan(2048);
  });

  await test.step('a system prompt for this conversation, saved on the server (the export below shows it)', async () => {
    await page.getByRole('button', { name: SETTINGS_TEXT.open }).click();
    await page.getByLabel(SETTINGS_TEXT.systemPrompt).fill(SYSTEM_PROMPT);
    await page.getByRole('button', { name: SETTINGS_TEXT.save }).click();
    await expect(page.getByLabel(SETTINGS_TEXT.systemPrompt)).toHaveCount(0);
    await page.reload();
    await page.getByRole('button', { name: SETTINGS_TEXT.open }).click();
    await expect(page.getByLabel(SETTINGS_TEXT.systemPrompt)).toHaveValue(SYSTEM_PROMPT);
    await page.getByRole('button', { name: SETTINGS_TEXT.cancel }).click();
  });

  await test.step('regenerate the last reply, then edit the last message and resend it', async () => {
    // Short replies: only max_tokens of the real requests is changed.
    await overrideParams(page, { max_tokens: 24 }, 2);
    const log = page.getByRole('log', { name: 'Messages' });
    const bubbles = log.locator('.assistant-msg');
    const count = await bubbles.count();
    const last = log.locator('.assistant-msg.is-assistant').last();
    const sendButton = page.getByRole('button', { name: 'Send message' });
    let started = page.waitForResponse('**/api/inference/stream/start');
    await last.getByRole('button', { name: REPLY_TEXT.regenerate }).click();
    await started;
    // The stopped reply is replaced by a new one; nothing else changes.
    await expect(sendButton).toBeVisible({ timeout: 30_000 });
    await expect(last.locator('.assistant-msg-usage')).toContainText(/\d+ tokens?/);
    await expect(last.getByText(REPLY_TEXT.stopped, { exact: true })).toHaveCount(0);
    await expect(bubbles).toHaveCount(count);

    await log.locator('.assistant-msg.is-user').last().getByRole('button', { name: REPLY_TEXT.edit }).click();
    await page.getByRole('textbox', { name: REPLY_TEXT.editLabel }).fill('A short answer please');
    started = page.waitForResponse('**/api/inference/stream/start');
    await page.getByRole('button', { name: REPLY_TEXT.saveAndSend }).click();
    await started;
    await expect(sendButton).toBeVisible({ timeout: 30_000 });
    await expect(log.locator('.assistant-msg.is-assistant').last().locator('.assistant-msg-usage')).toContainText(/\d+ tokens?/);
    // As saved: the edited message in place of the old one, one reply after it.
    await page.reload();
    await expect(bubbles).toHaveCount(count);
    await expect(log.locator('.assistant-msg.is-user').last()).toContainText('A short answer please');
    await expect(log.locator('.assistant-msg.is-user').first()).toContainText(PROMPT);
  });

  await test.step('the conversation is in the URL: a new one goes back to /app/assistant, Back reopens it, a link opens it', async () => {
    await expect(page).toHaveURL(/\/app\/assistant\/[0-9a-f-]{36}$/);
    const url = page.url();
    const log = page.getByRole('log', { name: 'Messages' });
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    await expect(page).toHaveURL(/\/app\/assistant$/);
    await expect(log.locator('.assistant-msg.is-user')).toHaveCount(0);
    await page.goBack();
    await expect(page).toHaveURL(url);
    await expect(log.locator('.assistant-msg.is-user').first()).toContainText(PROMPT);
    // A link to it works from anywhere in the app.
    await page.goto('/app/dashboard');
    await page.goto(url);
    await expect(log.locator('.assistant-msg.is-user').first()).toContainText(PROMPT);
  });

  await test.step('the conversation sidebar: rename, pin, search, export, delete', async () => {
    const sidebar = page.locator('.conv-sidebar');
    const actions = (title: string) => sidebar.getByRole('button', { name: `Actions for ${title}` });
    const chatTitle = (await sidebar.locator('.conv-item .conv-title').first().textContent())!.trim();

    await actions(chatTitle).click();
    await sidebar.getByRole('button', { name: 'Rename' }).click();
    const rename = sidebar.getByRole('textbox', { name: 'Conversation title' });
    await rename.fill('Analytical engine notes');
    await rename.press('Enter');
    await expect(sidebar.getByRole('button', { name: /^Analytical engine notes/ })).toBeVisible();
    await expect(sidebar.getByText(chatTitle)).toHaveCount(0);

    await actions('Analytical engine notes').click();
    await sidebar.getByRole('button', { name: 'Pin' }).click();
    const pinned = sidebar.locator('section').filter({ has: page.getByRole('heading', { name: 'Pinned' }) });
    await expect(pinned.getByRole('button', { name: /^Analytical engine notes/ })).toBeVisible();

    const search = sidebar.getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('no such words anywhere');
    await expect(sidebar.getByText('No conversations match your search')).toBeVisible();
    await search.fill('engine');
    await expect(sidebar.getByRole('button', { name: /^Analytical engine notes/ })).toBeVisible();
    // The server also searches the messages' text.
    await search.fill('long answer');
    await expect(sidebar.getByRole('button', { name: /^Analytical engine notes/ })).toBeVisible();
    await search.fill('');

    await actions('Analytical engine notes').click();
    const download = page.waitForEvent('download');
    await sidebar.getByRole('button', { name: 'Export JSON' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.json$/);
    const exported = JSON.parse(await readFile((await file.path())!, 'utf8')) as unknown;
    const json = JSON.stringify(exported);
    expect(json).toContain('Analytical engine notes');
    expect(json).toContain(PROMPT);
    expect(json).toContain(JSON.stringify(SYSTEM_PROMPT));
    expect(json).toContain(JSON.stringify(firstReply).slice(1, 40));

    page.once('dialog', (dialog) => {
      expect(dialog.message()).toBe('Are you sure you want to delete this conversation?');
      void dialog.accept();
    });
    await actions('Analytical engine notes').click();
    await sidebar.getByRole('button', { name: 'Delete' }).click();
    await expect(sidebar.getByText('No conversations yet')).toBeVisible();
    await expect(sidebar.getByRole('button', { name: 'Start your first conversation' })).toBeVisible();
  });

  await test.step('wallet: buy the Basic package through (the stand-in for) Stripe Checkout: balance + 5,500 and a purchase row', async () => {
    await navigate(page, 'Token Wallet');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Token Wallet');
    await expect(page.getByText('Manage your GLOB tokens and transactions')).toBeVisible();
    const before = (await balanceOf(page, request)).balance;
    expect(before).toBeLessThan(1000); // the two replies were paid for
    await expect(statValue(page, 'Current Balance')).toHaveText(formatGlob(before));

    const basic = page.locator('[data-package]').filter({ has: page.getByRole('heading', { name: 'Basic' }) });
    await expect(basic).toContainText('+500 bonus');
    await expect(basic).toContainText('$45');
    await basic.getByRole('button', { name: 'Buy Basic' }).click();
    // The server prices it and sends the browser to the payment page; paying there returns to the wallet.
    await expect(page.getByRole('heading', { level: 1, name: 'Pay $45.00' })).toBeVisible();
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/app\/wallet\?purchase=/);
    await expect(statValue(page, 'Current Balance')).toHaveText(formatGlob(before + 5500));
    await expect(topBarBalance(page)).toHaveText(`${formatGlob(before + 5500)} GLOB`);
    const row = transactions(page).filter({ hasText: 'Purchase' }).first();
    await expect(row).toContainText('+5,500 GLOB');
    await expect(row).toContainText('Completed');
    await expect(basic.getByRole('button', { name: 'Buy Basic' })).toBeVisible();
  });

  await test.step('send tokens to a second account by its wallet address; both balances change', async () => {
    const grace = await signUpByApi(request, { username: 'grace' });
    const graceWallet = await wallet(request, grace);
    expect(graceWallet.balance).toBe(1000);
    const before = (await balanceOf(page, request)).balance;

    await page.getByRole('button', { name: 'Send Tokens' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send Tokens' });
    await dialog.getByLabel('Recipient address').fill(graceWallet.address);
    await dialog.getByLabel('Amount (GLOB)').fill('250');
    await dialog.getByRole('button', { name: 'Review' }).click();
    await expect(dialog).toContainText(graceWallet.address);
    await expect(dialog).toContainText('250');
    await dialog.getByRole('button', { name: 'Confirm and Send' }).click();
    await expect(dialog.getByRole('status')).toHaveText(
      `Sent 250 GLOB to ${graceWallet.address}. Your balance is now ${formatGlob(before - 250)} GLOB.`,
    );
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toHaveCount(0);

    await expect(statValue(page, 'Current Balance')).toHaveText(formatGlob(before - 250));
    await expect(transactions(page).filter({ hasText: 'Transfer' }).first()).toContainText('-250 GLOB');
    expect((await wallet(request, grace)).balance).toBe(1250);
    expect((await balanceOf(page, request)).balance).toBeCloseTo(before - 250, 3);
  });

  await test.step('log out: back to /app/auth, and the app is closed again', async () => {
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/app\/auth$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your account');
    expect(await page.evaluate(() => localStorage.getItem('access_token'))).toBeNull();
    await page.goto('/app/wallet');
    await expect(page).toHaveURL(/\/app\/auth$/);
  });

  await test.step('/account-deletion: delete the account with the e-mailed code', async () => {
    await page.goto('/account-deletion');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Delete Your Account');
    await page.getByLabel('Email address').fill(ada.email);
    const since = await mailMark();
    await page.getByRole('button', { name: 'Send verification code' }).click();
    await expect(page.getByRole('heading', { name: 'Enter the verification code' })).toBeVisible();
    await expect(page.getByText(/^Code expires in [45]:\d{2}$/)).toBeVisible();
    await page.getByLabel('Verification code').fill(await codeFor(ada.email, 'deletion', since));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('heading', { name: 'Confirm account deletion' })).toBeVisible();
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await expect(page.getByRole('heading', { name: 'Your account has been deleted' })).toBeVisible();
    const rows = await query<{ n: string }>('SELECT count(*) AS n FROM users WHERE lower(email) = lower($1) AND deleted_at IS NULL', [ada.email]);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  await test.step('the same e-mail can register again, without a second welcome bonus', async () => {
    await registerThroughUi(page, { ...ada, username: 'ada_again' });
    await expect(page.getByText('Welcome back, ada_again!')).toBeVisible();
    await expect(statValue(page, 'Token Balance')).toHaveText('0');
  });
});
