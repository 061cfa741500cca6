import { CopyButton } from '../../components/CopyButton';

/** The user's receiving address (what a sender needs), with a copy button. */
export function WalletAddress({ address }: { address: string | null }) {
  return (
    <div className="card wallet-address">
      <div className="wallet-address-text">
        <span className="wallet-address-label">Your wallet address</span>
        <code className="mono" data-testid="wallet-address">
          {address ?? '…'}
        </code>
      </div>
      <CopyButton
        text={address ?? ''}
        label="Copy address"
        copiedLabel="Copied!"
        failedLabel="Select the address to copy it"
        className="btn btn-sm"
        statusClassName="wallet-address-status"
        disabled={!address}
      />
    </div>
  );
}
