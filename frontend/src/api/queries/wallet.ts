import { infiniteQueryOptions, mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import constants from '@glob/contract/constants.json';
import { ApiError, api, unwrap, wasAborted } from '../client';
import { meQuery } from './accounts';

export type Wallet = components['schemas']['Wallet'];
export type Transaction = components['schemas']['Transaction'];
export type TransactionType = components['schemas']['TransactionType'];
export type TokenPackage = components['schemas']['TokenPackage'];
export type TokenPurchase = components['schemas']['TokenPurchase'];
export type TransferRequest = components['schemas']['TransferRequest'];
export type TransferResult = components['schemas']['TransferResult'];

/** Wallet data is polled every 30 s. */
export const WALLET_POLL_MS = 30_000;
/** Transactions limit 50 (the Recent Transactions table). */
export const TRANSACTIONS_LIMIT = 50;
/** Earnings window 30 days. */
export const EARNINGS_DAYS = 30;
/** What one GLOB is shown as in USD (the spec's Wallet x-usd-per-glob). */
export const USD_PER_GLOB = constants.usdPerGlob;

/** Other wallet reads fall back to zeros or empty lists. */
export const ZERO_WALLET: Omit<Wallet, 'user_id' | 'address' | 'updated_at'> & { address: string | null } = {
  address: null,
  balance: 0,
  pending_balance: 0,
  bonus_balance: 0,
  transferable_balance: 0,
  total_earned: 0,
  total_spent: 0,
  pending_earnings: 0,
  staking_rewards: 0,
  stats: {
    total_earned: 0,
    total_spent: 0,
    total_transactions: 0,
    average_daily_earnings: 0,
    staking_apr: 0,
    referral_earnings: 0,
  },
};

/** Wallet load failures are only logged; no message is shown. A request dropped at logout is no failure. */
async function logged<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!wasAborted(error)) console.error(`Failed to load ${what}:`, error);
    throw error;
  }
}

const path = (userId: string) => ({ params: { path: { userId } } });

export const walletQueries = {
  all: ['wallet'] as const,
  /** Everything of one user's wallet (invalidate after any balance change, with ['accounts','me']). */
  user: (userId: string) => [...walletQueries.all, userId] as const,

  /** GET /api/wallet/packages — the Purchase Tokens grid, priced by the server. */
  packages: () =>
    queryOptions({
      queryKey: [...walletQueries.all, 'packages'] as const,
      queryFn: () => logged('token packages', () => unwrap(api.GET('/api/wallet/packages'))).then((r) => r.packages),
      staleTime: 5 * 60_000,
    }),

  /** GET /api/wallet/{userId} — balance, pending, totals, stats and the receiving address. */
  summary: (userId: string, refetchInterval = WALLET_POLL_MS) =>
    queryOptions({
      queryKey: [...walletQueries.user(userId), 'summary'] as const,
      queryFn: () => logged('wallet', () => unwrap(api.GET('/api/wallet/{userId}', path(userId)))),
      refetchInterval,
      retry: false,
    }),

  /** GET /api/users/{userId}/transactions?limit=50 — the Recent Transactions table (cursor pages), polled every 30 s. */
  transactions: (userId: string, limit = TRANSACTIONS_LIMIT) =>
    infiniteQueryOptions({
      queryKey: [...walletQueries.user(userId), 'transactions', { limit }] as const,
      queryFn: ({ pageParam }) =>
        logged('transactions', () =>
          unwrap(
            api.GET('/api/users/{userId}/transactions', {
              params: { path: { userId }, query: pageParam ? { limit, cursor: pageParam } : { limit } },
            }),
          ),
        ),
      initialPageParam: null as string | null,
      getNextPageParam: (last) => last.next_cursor,
      refetchInterval: WALLET_POLL_MS,
      retry: false,
    }),

  /** GET /api/wallet/{userId}/earnings?days=30 — one entry per UTC day, oldest first. */
  earnings: (userId: string, days = EARNINGS_DAYS) =>
    queryOptions({
      queryKey: [...walletQueries.user(userId), 'earnings', { days }] as const,
      queryFn: () => logged('earnings', () => unwrap(api.GET('/api/wallet/{userId}/earnings', { params: { path: { userId }, query: { days } } }))),
      refetchInterval: WALLET_POLL_MS,
      retry: false,
    }),
};

/** POST /api/wallet/{userId}/purchase — the server prices it; 409 when `amount`/`price` disagree with it. */
function purchaseTokens(userId: string, pkg: Pick<TokenPackage, 'id' | 'total_tokens' | 'price'>): Promise<TokenPurchase> {
  return unwrap(
    api.POST('/api/wallet/{userId}/purchase', {
      ...path(userId),
      body: { package_id: pkg.id, amount: pkg.total_tokens, price: pkg.price },
    }),
  );
}

/** POST /api/wallet/{userId}/transfer with an Idempotency-Key: a retry with the same key has no second effect. */
function transferTokens(userId: string, body: TransferRequest, idempotencyKey: string): Promise<TransferResult> {
  return unwrap(
    api.POST('/api/wallet/{userId}/transfer', {
      params: { path: { userId }, header: { 'Idempotency-Key': idempotencyKey } },
      body,
    }),
  );
}

/** After anything that changes the balance: the wallet and the stored user (the shell shows user.token_balance). */
export function invalidateBalance(queryClient: QueryClient): Promise<void> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: walletQueries.all }),
    queryClient.invalidateQueries({ queryKey: meQuery().queryKey }),
  ]).then(() => undefined);
}

export const walletMutations = {
  /** Buys a package; the caller reloads the balance (it shows the purchase first). */
  purchase: (userId: string) =>
    mutationOptions({
      mutationKey: [...walletQueries.user(userId), 'purchase'] as const,
      mutationFn: (pkg: Pick<TokenPackage, 'id' | 'total_tokens' | 'price'>) => purchaseTokens(userId, pkg),
      onError: (error, _pkg, _result, { client }) => {
        // The server's packages changed (409) or one is gone (404): show its current ones next time.
        if (error instanceof ApiError && (error.status === 409 || error.status === 404)) {
          void client.invalidateQueries({ queryKey: walletQueries.packages().queryKey });
        }
      },
    }),

  /** Sends tokens; the same `key` for a retry of the same transfer. */
  transfer: (userId: string) =>
    mutationOptions({
      mutationKey: [...walletQueries.user(userId), 'transfer'] as const,
      mutationFn: ({ body, key }: { body: TransferRequest; key: string }) => transferTokens(userId, body, key),
      onSuccess: (_result, _vars, _ctx, { client }) => {
        void invalidateBalance(client);
      },
    }),
};

/** A UUID for an Idempotency-Key; `crypto.randomUUID` exists only in secure contexts, so fall back to getRandomValues. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The packages as the spec documents them; shown when GET /api/wallet/packages fails (the server still prices every purchase). */
export const FALLBACK_PACKAGES = constants.tokenPackages as TokenPackage[];
