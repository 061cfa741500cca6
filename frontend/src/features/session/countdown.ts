import { useCallback, useEffect, useState } from 'react';

/**
 * A whole-second countdown: `start(n)` shows n, then n-1 every second down to 0; `stop()` resets to 0.
 * One interval while running, none at 0 (nothing ticks on a finished or unused countdown).
 */
export function useCountdown() {
  const [seconds, setSeconds] = useState(0);
  const running = seconds > 0;
  useEffect(() => {
    if (!running) return undefined;
    const id = setInterval(() => setSeconds((s) => (s > 0 ? s - 1 : 0)), 1000);
    return () => clearInterval(id);
  }, [running]);
  const start = useCallback((from: number) => setSeconds(Math.max(0, Math.floor(from))), []);
  const stop = useCallback(() => setSeconds(0), []);
  return { seconds, start, stop };
}

/** Seconds as m:ss ('5:00', '4:59', '0:07'). */
export function formatMinSec(total: number): string {
  const s = Math.max(0, Math.floor(total));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
