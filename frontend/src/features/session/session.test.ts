import { describe, expect, it } from '@jest/globals';
import { formatMinSec } from './countdown';
import { formatGlob } from '../../components/format';
import { displayName, userBalance, userId } from './session';

describe('session helpers', () => {
  it('reads the balance from token_balance or tokens_balance', () => {
    expect(userBalance({ token_balance: 962.5 })).toBe(962.5);
    expect(userBalance({ tokens_balance: 12 } as never)).toBe(12);
    expect(userBalance({ token_balance: '7.25' } as never)).toBe(7.25);
    expect(userBalance(null)).toBe(0);
    expect(userBalance({ token_balance: 'abc' } as never)).toBe(0);
  });

  it('names the user by username, else the e-mail local part', () => {
    expect(displayName({ username: 'ada', email: 'ada@example.com' })).toBe('ada');
    expect(displayName({ username: ' ', email: 'grace@example.com' })).toBe('grace');
    expect(displayName(null)).toBe('');
  });

  it('keys the user by user_id, id or _id', () => {
    expect(userId({ id: 'a' })).toBe('a');
    expect(userId({ _id: 'b' } as never)).toBe('b');
    expect(userId(undefined)).toBeNull();
  });

  it('formats GLOB with thousands separators and at most 2 decimals', () => {
    expect(formatGlob(1234567.891)).toBe('1,234,567.89');
    expect(formatGlob(1000)).toBe('1,000');
    expect(formatGlob('962.5')).toBe('962.5');
    expect(formatGlob(undefined)).toBe('0');
  });

  it('shows seconds as m:ss', () => {
    expect(formatMinSec(300)).toBe('5:00');
    expect(formatMinSec(299)).toBe('4:59');
    expect(formatMinSec(7)).toBe('0:07');
    expect(formatMinSec(0)).toBe('0:00');
    expect(formatMinSec(-3)).toBe('0:00');
  });
});
