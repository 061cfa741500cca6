import { memo, type CSSProperties } from 'react';
import './floating-dots.css';

/** A tiny deterministic generator, so the dots sit in the same places on every visit (no layout noise). */
function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Decorative floating dots drawn behind every page: 20, 15 or 10 of them. */
export const FloatingDots = memo(function FloatingDots({ count }: { count: 10 | 15 | 20 }) {
  const rand = seeded(count * 7919);
  const dots = Array.from({ length: count }, (_, i) => {
    const size = 3 + Math.round(rand() * 5);
    return (
      <span
        key={i}
        style={
          {
            left: `${(rand() * 100).toFixed(2)}%`,
            top: `${(rand() * 100).toFixed(2)}%`,
            width: size,
            height: size,
            '--d': `${(10 + rand() * 14).toFixed(1)}s`,
            '--delay': `${(-rand() * 10).toFixed(1)}s`,
            '--dx': `${Math.round((rand() - 0.5) * 80)}px`,
            '--dy': `${Math.round((rand() - 0.5) * 120)}px`,
          } as CSSProperties
        }
      />
    );
  });
  return (
    <div className="floating-dots" aria-hidden="true" data-count={count}>
      {dots}
    </div>
  );
});
