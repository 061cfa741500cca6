import type { Transaction, TransactionType } from '../../api/queries/wallet';
import { LOCALE } from '../../components/format';

const TYPE_LABELS: Record<TransactionType, string> = {
  earning: 'Earning',
  welcome_bonus: 'Welcome Bonus',
  bonus: 'Bonus',
  reward: 'Reward',
  spending: 'Spending',
  purchase: 'Purchase',
  transfer: 'Transfer',
  refund: 'Refund',
};

export function typeLabel(type: TransactionType): string {
  return TYPE_LABELS[type] ?? type;
}

/** Earning, welcome_bonus, bonus and reward are shown as plus in green, all others as minus in red; a refund comes back, so plus. */
const PLUS_TYPES = new Set<TransactionType>(['earning', 'welcome_bonus', 'bonus', 'reward', 'refund']);

/**
 * The sign of a row. The server says which way the money went (`direction`, spec TransactionDirection: credit +, debit −);
 * for the product's own types that is exactly the type rule above, and it also keeps a bought package or a transfer received
 * from showing as a loss. Without a direction the type rule decides.
 */
export function transactionSign(tx: Pick<Transaction, 'type'> & { direction?: Transaction['direction'] }): '+' | '-' {
  if (tx.direction) return tx.direction === 'credit' ? '+' : '-';
  return PLUS_TYPES.has(tx.type) ? '+' : '-';
}

const whole = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const cents = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
/** A package price as the document writes it: '$10', '$45', '$85', '$400' (cents only when there are any). */
export function formatPrice(amount: number): string {
  return Number.isInteger(amount) ? whole.format(amount) : cents.format(amount);
}
