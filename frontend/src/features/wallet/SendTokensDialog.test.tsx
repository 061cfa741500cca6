import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { renderWithProviders, testQueryClient } from '../../test/render';
import { SEND_TEXTS } from './SendTokensDialog';
import { ME, signIn, useHandlers } from './testing';
import { WalletPage } from './WalletPage';

const WALLET = example('/api/wallet/{userId}', 'get', 200); // balance 12437.5, pending 1.5, bonus 662.5 → 11775 transferable
const TO = 'glb1ad625b733d8ef62f7479fc9c711b60588416de';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function openDialog() {
  const user = userEvent.setup();
  const queryClient = testQueryClient();
  queryClient.setQueryData(['accounts', 'me'], ME);
  await renderWithProviders(<WalletPage />, { path: '/app/wallet', queryClient });
  const opener = screen.getByRole('button', { name: 'Send Tokens' });
  await waitFor(() => expect(opener).toBeEnabled());
  await user.click(opener);
  const dialog = screen.getByRole('dialog', { name: 'Send Tokens' });
  return { user, dialog, opener, queryClient };
}

const field = (dialog: HTMLElement, label: string) => within(dialog).getByLabelText(label);

beforeEach(() => signIn());
afterEach(() => localStorage.clear());

describe('Send tokens dialog', () => {
  it('is a modal dialog: focus moves in, Tab stays in, Escape closes and focus returns to the button', async () => {
    const { user, dialog, opener } = await openDialog();
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(field(dialog, SEND_TEXTS.addressLabel)).toHaveFocus();
    // from the last control Tab wraps to the first, and Shift+Tab back
    within(dialog).getByRole('button', { name: 'Review' }).focus();
    await user.tab();
    expect(field(dialog, SEND_TEXTS.addressLabel)).toHaveFocus();
    await user.tab({ shift: true });
    expect(within(dialog).getByRole('button', { name: 'Review' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();
  });

  it('checks the address and the amount before the confirmation step', async () => {
    const { user, dialog } = await openDialog();
    const address = field(dialog, SEND_TEXTS.addressLabel);
    const amount = field(dialog, SEND_TEXTS.amountLabel);
    const review = within(dialog).getByRole('button', { name: 'Review' });
    // Only what may be transferred: the welcome bonus stays, and the dialog says so.
    expect(within(dialog).getByText(`Available: 11,775 GLOB ${SEND_TEXTS.bonusStays}`)).toBeInTheDocument();

    await user.click(review);
    expect(within(dialog).getByText(SEND_TEXTS.addressRequired)).toBeInTheDocument();
    expect(within(dialog).getByText(SEND_TEXTS.amountRequired)).toBeInTheDocument();
    expect(address).toHaveAttribute('aria-invalid', 'true');
    expect(address).toHaveFocus();

    await user.type(address, 'glb1xyz');
    // an edited field's error clears
    expect(within(dialog).queryByText(SEND_TEXTS.addressRequired)).toBeNull();
    await user.click(review);
    expect(within(dialog).getByText(SEND_TEXTS.addressInvalid)).toBeInTheDocument();

    await user.clear(address);
    await user.type(address, WALLET.address);
    await user.click(review);
    expect(within(dialog).getByText(SEND_TEXTS.addressOwn)).toBeInTheDocument();

    await user.clear(address);
    await user.type(address, TO);
    for (const [typed, message] of [
      ['0', SEND_TEXTS.amountPositive],
      ['-5', SEND_TEXTS.amountPositive],
      ['abc', SEND_TEXTS.amountPositive],
      ['1.2345', SEND_TEXTS.amountDecimals],
      ['11775.001', SEND_TEXTS.amountTooHigh],
    ] as const) {
      await user.clear(amount);
      await user.type(amount, typed);
      await user.click(review);
      expect(within(dialog).getByText(message)).toBeInTheDocument();
      expect(amount).toHaveFocus();
    }
    expect(within(dialog).queryByRole('button', { name: SEND_TEXTS.confirm })).toBeNull();
  });

  it('confirms, sends with an Idempotency-Key reused on retry, shows the server error, then the success and reloads the balance', async () => {
    const requests: { key: string | null; body: unknown }[] = [];
    let walletCalls = 0;
    let txCalls = 0;
    useHandlers(
      http.get('/api/wallet/{userId}', ({ response }) => {
        walletCalls += 1;
        return response(200).json(WALLET);
      }),
      http.get('/api/users/{userId}/transactions', ({ response }) => {
        txCalls += 1;
        return response(200).json(example('/api/users/{userId}/transactions', 'get', 200));
      }),
      http.post('/api/wallet/{userId}/transfer', async ({ request, response }) => {
        requests.push({ key: request.headers.get('Idempotency-Key'), body: await request.json() });
        if (requests.length === 1) return response(402).json(example('/api/wallet/{userId}/transfer', 'post', 402));
        return response(201).json(example('/api/wallet/{userId}/transfer', 'post', 201));
      }),
    );
    const { user, dialog, queryClient } = await openDialog();
    await user.type(field(dialog, SEND_TEXTS.addressLabel), `  ${TO.toUpperCase()} `);
    await user.type(field(dialog, SEND_TEXTS.amountLabel), '250');
    await user.type(field(dialog, SEND_TEXTS.noteLabel), 'Thanks for the GPU time');
    await user.click(within(dialog).getByRole('button', { name: 'Review' }));

    // the confirmation shows both
    expect(within(dialog).getByText(SEND_TEXTS.confirmIntro)).toHaveFocus();
    expect(within(dialog).getByText(TO)).toBeInTheDocument();
    expect(within(dialog).getByText('250 GLOB')).toBeInTheDocument();
    expect(requests).toHaveLength(0);

    await user.click(within(dialog).getByRole('button', { name: SEND_TEXTS.confirm }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(example('/api/wallet/{userId}/transfer', 'post', 402).message);
    expect(requests[0]!.body).toEqual({ to_address: TO, amount: 250, note: 'Thanks for the GPU time' });
    expect(requests[0]!.key).toMatch(UUID);

    const before = { walletCalls, txCalls };
    await user.click(within(dialog).getByRole('button', { name: SEND_TEXTS.confirm }));
    const status = await within(dialog).findByRole('status');
    expect(status).toHaveTextContent(`Sent 250 GLOB to ${TO}. Your balance is now 12,187.5 GLOB.`);
    expect(within(dialog).queryByRole('alert')).toBeNull();
    // the retry of the same confirmation reuses the key
    expect(requests).toHaveLength(2);
    expect(requests[1]!.key).toBe(requests[0]!.key);
    // balance and history reload, and the shell's user
    await waitFor(() => expect(walletCalls).toBeGreaterThan(before.walletCalls));
    await waitFor(() => expect(txCalls).toBeGreaterThan(before.txCalls));
    expect(queryClient.getQueryState(['accounts', 'me'])?.isInvalidated).toBe(true);

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('uses a new key once the transfer is changed, and shows 404/422 messages of the server', async () => {
    const keys: (string | null)[] = [];
    useHandlers(
      plain.post('http://localhost/api/wallet/:userId/transfer', ({ request }) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return keys.length === 1
          ? HttpResponse.json(example('/api/wallet/{userId}/transfer', 'post', 404), { status: 404 })
          : HttpResponse.json(example('/api/wallet/{userId}/transfer', 'post', 422), { status: 422 });
      }),
    );
    const { user, dialog } = await openDialog();
    await user.type(field(dialog, SEND_TEXTS.addressLabel), TO);
    await user.type(field(dialog, SEND_TEXTS.amountLabel), '10');
    await user.click(within(dialog).getByRole('button', { name: 'Review' }));
    await user.click(within(dialog).getByRole('button', { name: SEND_TEXTS.confirm }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(`No wallet found with address ${TO}`);

    await user.click(within(dialog).getByRole('button', { name: 'Back' }));
    const amount = field(dialog, SEND_TEXTS.amountLabel);
    expect(amount).toHaveValue('10');
    await user.clear(amount);
    await user.type(amount, '11');
    await user.click(within(dialog).getByRole('button', { name: 'Review' }));
    expect(within(dialog).queryByRole('alert')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: SEND_TEXTS.confirm }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Cannot transfer to your own wallet');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toMatch(UUID);
    expect(keys[1]).not.toBe(keys[0]);
  });
});
