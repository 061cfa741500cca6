import { describe, expect, it } from '@jest/globals';
import { formatDateTime } from '../../components/format';
import { chatTitle } from './texts';

describe('a new conversation’s title', () => {
  it('is Chat and the day in the app’s one date format, the one its lists use', () => {
    const day = new Date(2026, 10, 25, 14, 30);
    expect(chatTitle(day)).toBe('Chat Nov 25, 2026');
    expect(formatDateTime(day.toISOString())).toContain('Nov 25, 2026');
  });
});
