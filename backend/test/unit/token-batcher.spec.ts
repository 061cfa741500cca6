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
});
