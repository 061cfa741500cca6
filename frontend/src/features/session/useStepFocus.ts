import { useEffect, useRef } from 'react';

/**
 * Multi-step screens: when `step` changes (not on first render), focus the new step's heading so keyboard and
 * screen-reader users land on it. Attach the returned ref to the heading (give it tabIndex={-1}).
 */
export function useStepFocus<T>(step: T) {
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    heading.current?.focus();
  }, [step]);
  return heading;
}
