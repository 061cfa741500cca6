import type { Schemas } from '../../contract/types';

/** The four token packages — the one definition the API serves and prices purchases from. */
export const TOKEN_PACKAGES: readonly Schemas['TokenPackage'][] = [
  { id: 'starter', name: 'Starter', tokens: 1000, bonus: 0, total_tokens: 1000, price: 10, currency: 'USD', popular: false, label: null },
  { id: 'basic', name: 'Basic', tokens: 5000, bonus: 500, total_tokens: 5500, price: 45, currency: 'USD', popular: false, label: null },
  { id: 'pro', name: 'Pro', tokens: 10000, bonus: 1500, total_tokens: 11500, price: 85, currency: 'USD', popular: true, label: 'Most Popular' },
  {
    id: 'enterprise',
    name: 'Enterprise',
    tokens: 50000,
    bonus: 10000,
    total_tokens: 60000,
    price: 400,
    currency: 'USD',
    popular: false,
    label: null,
  },
];
