import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { failureText } from '../../api/errors';
import { loginPasskeyMutation } from '../../api/queries/accounts';
import { Notice } from './Field';
import { MSG } from './messages';

/** 'Continue with a passkey': no e-mail, no password; the browser offers the passkeys it holds for this site. */
export function PasskeySignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const passkey = useMutation(loginPasskeyMutation());
  const busy = passkey.isPending || passkey.isSuccess;
  return (
    <div className="auth-passkey">
      <button
        type="button"
        className="btn btn-block"
        disabled={busy}
        aria-busy={busy}
        onClick={() => {
          setError(null);
          passkey.mutate(undefined, { onSuccess: onSignedIn, onError: (err) => setError(failureText(err, MSG.passkeyFailed, MSG.passkeyFailed)) });
        }}
      >
        {busy && <span className="spinner small" aria-hidden="true" />}
        {MSG.signInWithPasskey}
      </button>
      <Notice error={error} />
    </div>
  );
}
