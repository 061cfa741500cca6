import { TokenBatcher } from '@glob/engine/token-batcher';

describe('TokenBatcher', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('sends the first piece at once, then coalesces what comes within the interval, in order', () => {
    const sent: string[] = [];
    const b = new TokenBatcher((t) => sent.push(t), 10);
    b.push('Hel');
    expect(sent).toEqual(['Hel']);
    b.push('lo');
    b.push(', ');
    expect(sent).toEqual(['Hel']);
    jest.advanceTimersByTime(10);
    expect(sent).toEqual(['Hel', 'lo, ']);
    jest.advanceTimersByTime(50);
    b.push('world'); // the interval has passed: at once
    expect(sent).toEqual(['Hel', 'lo, ', 'world']);
  });

  it('flush() sends what is pending now (before the final event) and nothing when empty', () => {
    const sent: string[] = [];
    const b = new TokenBatcher((t) => sent.push(t), 10);
    b.push('a');
    b.push('b');
    b.flush();
    expect(sent).toEqual(['a', 'b']);
    b.flush();
    jest.advanceTimersByTime(100);
    expect(sent).toEqual(['a', 'b']);
    expect(sent.join('')).toBe('ab');
  });

  it('the streams of a process end their frames on one shared tick: one timer, and what they send leaves together', () => {
    const sent: Array<[string, number]> = [];
    const a = new TokenBatcher((t) => sent.push([t, Date.now()]), 10);
    const b = new TokenBatcher((t) => sent.push([t, Date.now()]), 10);
    jest.advanceTimersByTime(3);
    a.push('a1'); // quiet before: at once
    a.push('a2');
    jest.advanceTimersByTime(4);
    b.push('b1');
    b.push('b2');
    // Both wait for the next multiple of 10 ms on the clock, on one timer.
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(2);
    expect(sent.map(([t]) => t)).toEqual(['a1', 'b1']);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([
      ['a1', 1_000_003],
      ['b1', 1_000_007],
      ['a2', 1_000_010],
      ['b2', 1_000_010],
    ]);
    // A flush before the tick (a reply's end) takes the batcher off it; the last one leaving clears the timer.
    a.push('a3');
    b.push('b3');
    a.flush();
    expect(jest.getTimerCount()).toBe(1);
    b.flush();
    expect(jest.getTimerCount()).toBe(0);
    expect(sent.map(([t]) => t).join('')).toBe('a1b1a2b2a3b3');
  });
});
