import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http as plain } from 'msw';
import { WALLET_POLL_MS } from '../../api/queries/wallet';
import { example } from '../../mocks/examples';
import { http } from '../../mocks/http';
import { server } from '../../mocks/node';
import { renderWithProviders, testQueryClient } from '../../test/render';
import { transactionSign } from './format';
import { PURCHASE_CHECK_MS, checkout } from './PurchaseGrid';
import { ME, signIn, useHandlers } from './testing';
import { WalletPage } from './WalletPage';

const WALLET = example('/api/wallet/{userId}', 'get', 200);
const TXS = example('/api/users/{userId}/transactions', 'get', 200);
const PURCHASE = example('/api/wallet/{userId}/purchase', 'post', 201);

const card = (title: string) => screen.getByRole('heading', { level: 3, name: title }).closest('li') as HTMLElement;
const pkg = (id: string) => document.querySelector(`[data-package="${id}"]`) as HTMLElement;
const render = (queryClient = testQueryClient()) => renderWithProviders(<WalletPage />, { path: '/app/wallet', queryClient });

beforeEach(() => signIn());
afterEach(() => {
  jest.useRealTimers();
  localStorage.clear();
});

describe('WalletPage', () => {
  it('shows the title, the four cards from GET /api/wallet/{userId}, and the receiving address with a copy button', async () => {
    const writeText = jest.fn(async (_text: string) => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const asked: string[] = [];
    useHandlers(
      http.get('/api/wallet/{userId}', ({ params, response }) => {
        asked.push(params.userId);
        return response(200).json(WALLET);
      }),
    );
    await render();
    expect(screen.getByRole('heading', { level: 1, name: 'Token Wallet' })).toBeInTheDocument();
    expect(screen.getByText('Manage your GLOB tokens and transactions')).toBeInTheDocument();
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('12,437.5 GLOB'));
    expect(asked[0]).toBe(ME.id);
    // 0.008 USD per GLOB: 12437.5 × 0.008 = 99.50
    expect(within(card('Current Balance')).getByText('≈ $99.50 USD')).toBeInTheDocument();
    // The part of the balance that is welcome bonus (spendable on AI, not transferable).
    expect(within(card('Current Balance')).getByText('of which bonus: 662.5 GLOB')).toBeInTheDocument();
    expect(card('Total Earned')).toHaveTextContent('1,275 GLOB');
    expect(card('Total Spent')).toHaveTextContent('337.5 GLOB');
    // rewards of the user's nodes not yet paid
    expect(card('Pending')).toHaveTextContent('56.25 GLOB');
    expect(within(card('Pending')).getByText('Node rewards, paid after the settlement window')).toBeInTheDocument();

    expect(screen.getByTestId('wallet-address')).toHaveTextContent(WALLET.address);
    await userEvent.click(screen.getByRole('button', { name: 'Copy address' }));
    expect(writeText).toHaveBeenCalledWith(WALLET.address);
    expect(await screen.findByText('Copied!')).toBeInTheDocument();
  });

  it('shows zeros when the wallet cannot be read, and only logs the failure', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    useHandlers(plain.get('http://localhost/api/wallet/:userId', () => HttpResponse.json({ message: 'boom' }, { status: 500 })));
    await render();
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('0 GLOB'));
    expect(within(card('Current Balance')).getByText('≈ $0.00 USD')).toBeInTheDocument();
    expect(card('Pending')).toHaveTextContent('0 GLOB');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(logged).toHaveBeenCalled();
  });

  it('lists the four packages of GET /api/wallet/packages', async () => {
    await render();
    const grid = screen.getByRole('region', { name: 'Purchase Tokens' });
    await waitFor(() =>
      expect(
        within(grid)
          .getAllByRole('heading', { level: 3 })
          .map((h) => h.textContent),
      ).toEqual(['Starter', 'Basic', 'Pro', 'Enterprise']),
    );
    expect(pkg('starter')).toHaveTextContent('1,000 GLOB');
    expect(pkg('starter')).toHaveTextContent('$10');
    expect(pkg('starter')).not.toHaveTextContent('bonus');
    expect(pkg('basic')).toHaveTextContent('5,000 GLOB+500 bonus$45');
    expect(pkg('pro')).toHaveTextContent('Most Popular');
    expect(pkg('pro')).toHaveTextContent('10,000 GLOB+1,500 bonus$85');
    expect(pkg('enterprise')).toHaveTextContent('50,000 GLOB+10,000 bonus$400');
    expect(within(grid).getAllByText('Most Popular')).toHaveLength(1);
  });

  it('buys a package: selected with a spinner, then a check; 2 s later the selection clears and balance and history reload', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const user = userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) });
    let release!: () => void;
    const bodies: unknown[] = [];
    let walletCalls = 0;
    let txCalls = 0;
    useHandlers(
      http.get('/api/wallet/{userId}', ({ response }) => {
        walletCalls += 1;
        return response(200).json({ ...WALLET, balance: walletCalls === 1 ? 937.5 : 12437.5 });
      }),
      http.get('/api/users/{userId}/transactions', ({ response }) => {
        txCalls += 1;
        return response(200).json(TXS);
      }),
      http.post('/api/wallet/{userId}/purchase', async ({ request, response }) => {
        bodies.push(await request.json());
        await new Promise<void>((r) => (release = r));
        return response(201).json(PURCHASE);
      }),
    );
    const queryClient = testQueryClient();
    queryClient.setQueryData(['accounts', 'me'], ME);
    await render(queryClient);
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('937.5 GLOB'));
    await waitFor(() => expect(txCalls).toBe(1));

    await user.click(within(pkg('pro')).getByRole('button', { name: 'Buy Pro' }));
    expect(pkg('pro')).toHaveClass('selected');
    expect(within(pkg('pro')).getByTestId('purchase-spinner')).toBeInTheDocument();
    // the other packages cannot be bought meanwhile
    expect(within(pkg('basic')).getByRole('button', { name: 'Buy Basic' })).toHaveAttribute('aria-disabled', 'true');
    await waitFor(() => expect(bodies).toEqual([{ package_id: 'pro', amount: 11500, price: 85 }]));

    await act(async () => release());
    await waitFor(() => expect(within(pkg('pro')).getByTestId('purchase-check')).toBeInTheDocument());
    expect(pkg('pro')).toHaveClass('selected');
    expect(screen.getByText('Pro package purchased: 11,500 GLOB added.')).toBeInTheDocument();
    expect([walletCalls, txCalls]).toEqual([1, 1]);

    await act(async () => {
      jest.advanceTimersByTime(PURCHASE_CHECK_MS - 100);
    });
    expect(pkg('pro')).toHaveClass('selected');
    await act(async () => {
      jest.advanceTimersByTime(100);
    });
    await waitFor(() => expect(pkg('pro')).not.toHaveClass('selected'));
    expect(within(pkg('pro')).getByRole('button', { name: 'Buy Pro' })).not.toHaveAttribute('aria-disabled');
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('12,437.5 GLOB'));
    await waitFor(() => expect(txCalls).toBe(2));
    // the shell's user (token_balance) is reloaded too
    expect(queryClient.getQueryState(['accounts', 'me'])?.isInvalidated).toBe(true);
    expect(PURCHASE_CHECK_MS).toBe(2_000);
  });

  it('sends the browser to the Checkout page when the server answers a checkout URL', async () => {
    const go = jest.spyOn(checkout, 'go').mockImplementation(() => undefined);
    const stripe = example('/api/wallet/{userId}/purchase', 'post', 201);
    Object.assign(stripe, {
      status: 'pending',
      test_mode: false,
      checkout_url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8',
      transaction: null,
    });
    useHandlers(http.post('/api/wallet/{userId}/purchase', ({ response }) => response(201).json(stripe)));
    await render();
    await userEvent.click(await within(pkg('basic')).findByRole('button', { name: 'Buy Basic' }));
    await waitFor(() => expect(go).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8'));
    expect(pkg('basic')).toHaveClass('selected');
  });

  it("shows why a purchase was refused (the server's message), frees the packages, and reloads them after a 409", async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    let packageCalls = 0;
    server.use(
      http.get('/api/wallet/packages', ({ response }) => {
        packageCalls += 1;
        return response(200).json(example('/api/wallet/packages', 'get', 200));
      }),
      http.post('/api/wallet/{userId}/purchase', ({ response }) => response(409).json(example('/api/wallet/{userId}/purchase', 'post', 409))),
    );
    await render();
    await userEvent.click(await within(pkg('pro')).findByRole('button', { name: 'Buy Pro' }));
    await waitFor(() => expect(logged).toHaveBeenCalledWith('Token purchase failed:', expect.anything()));
    await waitFor(() => expect(pkg('pro')).not.toHaveClass('selected'));
    expect(await screen.findByRole('alert')).toHaveTextContent(example('/api/wallet/{userId}/purchase', 'post', 409).message);
    // the server's packages are read again
    await waitFor(() => expect(packageCalls).toBe(2));
  });

  it('says purchases are not available when the server has no payment provider (503), and credits nothing', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    useHandlers(
      http.post('/api/wallet/{userId}/purchase', ({ response }) => response(503).json(example('/api/wallet/{userId}/purchase', 'post', 503))),
    );
    await render();
    await userEvent.click(await within(pkg('starter')).findByRole('button', { name: 'Buy Starter' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Purchases are not available right now: no payment provider is configured.');
    expect(within(pkg('starter')).getByRole('button', { name: 'Buy Starter' })).toBeInTheDocument();
  });

  it('shows the transactions with + in green for credits and - in red for debits', async () => {
    useHandlers(
      http.get('/api/users/{userId}/transactions', ({ response }) =>
        response(200).json({
          ...TXS,
          transactions: [...TXS.transactions, { ...example('/api/wallet/{userId}/history', 'get', 200).transactions[0]! }],
        }),
      ),
    );
    await render();
    const section = screen.getByRole('region', { name: 'Recent Transactions' });
    const table = await within(section).findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Type', 'Description', 'Amount', 'Status', 'Date']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(4);
    const cells = (i: number) => within(rows[i]!).getAllByRole('cell');
    const amount = (i: number) => cells(i)[2]!.firstElementChild!;

    expect(cells(0)[0]).toHaveTextContent('Spending');
    expect(cells(0)[1]).toHaveTextContent('AI reply with llama-3.3-70b-instruct');
    expect(amount(0)).toHaveTextContent('-1.5 GLOB');
    expect(amount(0)).toHaveClass('debit');
    expect(cells(0)[3]).toHaveTextContent('Pending');

    expect(cells(1)[0]).toHaveTextContent('Earning');
    expect(amount(1)).toHaveTextContent('+37.5 GLOB');
    expect(amount(1)).toHaveClass('credit');
    expect(cells(1)[3]).toHaveTextContent('Completed');

    expect(cells(2)[0]).toHaveTextContent('Welcome Bonus');
    expect(amount(2)).toHaveTextContent('+1,000 GLOB');
    expect(amount(2)).toHaveClass('credit');

    expect(cells(3)[0]).toHaveTextContent('Transfer');
    expect(amount(3)).toHaveTextContent('-250 GLOB');
    expect(amount(3)).toHaveClass('debit');
    expect(within(rows[3]!).getByText(/Nov 21, 2026/)).toBeInTheDocument();
  });

  it('signs rows by their type when no direction is given (earnings and bonuses plus), and by the direction otherwise', () => {
    for (const type of ['earning', 'welcome_bonus', 'bonus', 'reward'] as const) expect(transactionSign({ type })).toBe('+');
    for (const type of ['spending', 'purchase', 'transfer'] as const) expect(transactionSign({ type })).toBe('-');
    expect(transactionSign({ type: 'purchase', direction: 'credit' })).toBe('+');
    expect(transactionSign({ type: 'transfer', direction: 'credit' })).toBe('+');
    expect(transactionSign({ type: 'transfer', direction: 'debit' })).toBe('-');
  });

  it('shows an empty state without transactions', async () => {
    useHandlers(http.get('/api/users/{userId}/transactions', ({ response }) => response(200).json({ transactions: [], next_cursor: null })));
    await render();
    expect(await screen.findByText('No transactions yet')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: /transactions/i })).toBeNull();
  });

  it('loads the next page with the cursor', async () => {
    const cursors: (string | null)[] = [];
    useHandlers(
      http.get('/api/users/{userId}/transactions', ({ request, response }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        cursors.push(cursor);
        return cursor
          ? response(200).json({ transactions: [TXS.transactions[2]!], next_cursor: null })
          : response(200).json({ transactions: TXS.transactions.slice(0, 2), next_cursor: 'abc' });
      }),
    );
    await render();
    await userEvent.click(await screen.findByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('Welcome bonus')).toBeInTheDocument();
    expect(cursors).toEqual([null, 'abc']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('polls the wallet and the transactions every 30 s', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    let walletCalls = 0;
    const limits: (string | null)[] = [];
    useHandlers(
      http.get('/api/wallet/{userId}', ({ response }) => {
        walletCalls += 1;
        return response(200).json({ ...WALLET, balance: walletCalls * 10 });
      }),
      http.get('/api/users/{userId}/transactions', ({ request, response }) => {
        limits.push(new URL(request.url).searchParams.get('limit'));
        return response(200).json(TXS);
      }),
    );
    await render();
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('10 GLOB'));
    await waitFor(() => expect(limits).toHaveLength(1));
    await act(async () => {
      jest.advanceTimersByTime(WALLET_POLL_MS - 1000);
    });
    expect(walletCalls).toBe(1);
    expect(limits).toHaveLength(1);
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    await waitFor(() => expect(card('Current Balance')).toHaveTextContent('20 GLOB'));
    await waitFor(() => expect(limits).toHaveLength(2));
    expect(limits).toEqual(['50', '50']);
    expect(WALLET_POLL_MS).toBe(30_000);
  });

  it('points to the desktop app for resource sharing, distributed computing and earning tokens', async () => {
    await render();
    const note = screen.getByRole('complementary', { name: 'Earn GLOB with the desktop app' });
    expect(note).toHaveTextContent('Download the desktop app for resource sharing, distributed computing and earning tokens.');
    expect(within(note).getByRole('link', { name: 'Go to Downloads' })).toHaveAttribute('href', '/downloads');
  });
});
