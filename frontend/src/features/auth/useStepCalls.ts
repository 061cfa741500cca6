import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { failureText } from '../../api/errors';

/**
 * The calls of a flow with steps (send a code, verify it, resend it, finish) run through one mutation: one busy state
 * spans every step, and one notice line shows the outcome, a failure as the server's text or the step's fallback.
 */
export function useStepCalls() {
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const call = useMutation({
    mutationFn: ({ work }: { fallback: string; work: () => Promise<void> }) => work(),
    // Without a connection a call fails at once with its text instead of waiting for one.
    networkMode: 'always',
    onError: (err, { fallback }) => setError(failureText(err, fallback)),
  });

  const clear = () => {
    setError(null);
    setInfo(null);
  };

  /** Clears the notice line and runs `work`; a failure shows the server's text or `fallback`. */
  const run = (fallback: string, work: () => Promise<void>) => {
    clear();
    call.mutate({ fallback, work });
  };

  return { run, busy: call.isPending, error, info, setError, setInfo, clear };
}
