import { describe, expect, it } from '@jest/globals';
import { FALLBACK_STATS } from '../../api/queries/system';
import { formatActiveUsers, formatData, formatStats, formatTasks } from './format';

describe('stats formatting', () => {
  it("adds '+' after users only when over 100", () => {
    expect(formatActiveUsers(2847)).toBe('2,847+');
    expect(formatActiveUsers(101)).toBe('101+');
    expect(formatActiveUsers(100)).toBe('100');
    expect(formatActiveUsers(0)).toBe('0');
  });

  it("shows tasks of 1000 or more as K with one decimal, '+' when above 0", () => {
    expect(formatTasks(1250000)).toBe('1250.0K+');
    expect(formatTasks(1000)).toBe('1.0K+');
    expect(formatTasks(1550)).toBe('1.6K+');
    expect(formatTasks(999)).toBe('999+');
    expect(formatTasks(1)).toBe('1+');
    expect(formatTasks(0)).toBe('0');
  });

  it('shows data of 1000 GB or more as TB', () => {
    expect(formatData(45.8)).toBe('45.8 GB');
    expect(formatData(999.94)).toBe('999.9 GB');
    expect(formatData(1000)).toBe('1.0 TB');
    expect(formatData(2450)).toBe('2.5 TB');
    expect(formatData(0)).toBe('0.0 GB');
  });

  it("shows '...' while loading", () => {
    expect(formatStats(undefined)).toEqual({ activeUsers: '...', tasksProcessed: '...', dataProcessed: '...' });
  });

  it('formats the fallback figures', () => {
    expect(FALLBACK_STATS).toMatchObject({ active_users: 2847, total_tasks: 1250000, data_processed_gb: 45.8 });
    expect(formatStats(FALLBACK_STATS)).toEqual({ activeUsers: '2,847+', tasksProcessed: '1250.0K+', dataProcessed: '45.8 GB' });
  });
});
