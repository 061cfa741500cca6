import { useEffect, useRef, useState } from 'react';
import { copyText } from '../../components/clipboard';

/** The user's receiving address (what a sender needs), with a copy button. */
export function WalletAddress({ address }: { address: string | null }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const copy = async () => {
    if (!address) return;
    const ok = await copyText(address);
    setCopied(ok ? 'yes' : 'no');
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(null), 2_000);
  };

  return (
    <div className="card wallet-address">
      <div className="wallet-address-text">
        <span className="wallet-address-label">Your wallet address</span>
        <code className="mono" data-testid="wallet-address">
          {address ?? '…'}
        </code>
      </div>
      <button type="button" className="btn btn-sm" onClick={() => void copy()} disabled={!address}>
        Copy address
      </button>
      <span className="wallet-address-status" role="status">
        {copied === 'yes' ? 'Copied!' : copied === 'no' ? 'Select the address to copy it' : ''}
      </span>
    </div>
  );
}
