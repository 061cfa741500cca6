import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { USD_PER_GLOB, ZERO_WALLET, walletQueries } from '../../api/queries/wallet';
import { Icon } from '../../components/Icon';
import { useSession, userId } from '../session/session';
import { formatGlob, formatUsd } from '../../components/format';
import { EarningsChart } from './EarningsChart';
import { PurchaseGrid } from './PurchaseGrid';
import { SendTokensDialog } from './SendTokensDialog';
import { StatCard } from './StatCard';
import { TransactionsTable } from './TransactionsTable';
import { WalletAddress } from './WalletAddress';
import './wallet.css';

/** The token wallet, plus sending tokens, the receiving address and a 30-day earnings chart. */
export function WalletPage() {
  const { user } = useSession();
  const id = userId(user);
  const wallet = useQuery({ ...walletQueries.summary(id ?? ''), enabled: Boolean(id) });
  const [sending, setSending] = useState(false);

  // A failed read shows zeros (and is only logged); '…' until the first answer.
  const w = wallet.data ?? ZERO_WALLET;
  const loading = wallet.isLoading;
  const figure = (n: number) => (loading ? '…' : formatGlob(n));
  // Only bought, received or earned GLOB can be sent: the welcome bonus stays (it pays for AI replies first).
  const transferable = Math.max(0, w.transferable_balance);

  return (
    <div className="app-page wallet">
      <header className="app-page-head app-page-head-row">
        <div>
          <h1>Token Wallet</h1>
          <p>Manage your GLOB tokens and transactions</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setSending(true)} disabled={!id || loading}>
          <Icon name="share" size={18} />
          Send Tokens
        </button>
      </header>

      <WalletAddress address={w.address} />

      <section className="app-section" aria-labelledby="wallet-overview">
        <h2 id="wallet-overview" className="visually-hidden">
          Balance overview
        </h2>
        <ul className="stat-grid four">
          <StatCard title="Current Balance" value={figure(w.balance)} unit="GLOB" icon="token">
            <p className="stat-card-detail">≈ {loading ? '…' : formatUsd(w.balance * USD_PER_GLOB)} USD</p>
            {w.bonus_balance > 0 ? <p className="stat-card-detail">of which bonus: {formatGlob(w.bonus_balance)} GLOB</p> : null}
          </StatCard>
          <StatCard title="Total Earned" value={figure(w.total_earned)} unit="GLOB" icon="star">
            <p className="stat-card-detail">Rewards and bonuses</p>
          </StatCard>
          <StatCard title="Total Spent" value={figure(w.total_spent)} unit="GLOB" icon="chat">
            <p className="stat-card-detail">AI usage</p>
          </StatCard>
          <StatCard title="Pending" value={figure(w.pending_earnings)} unit="GLOB" icon="clock">
            <p className="stat-card-detail">Node rewards, paid after the settlement window</p>
          </StatCard>
        </ul>
      </section>

      {id ? (
        <>
          <PurchaseGrid userId={id} />
          <EarningsChart userId={id} />
          <TransactionsTable userId={id} />
        </>
      ) : null}

      <aside className="card wallet-desktop" aria-labelledby="wallet-desktop-title">
        <span className="wallet-desktop-icon" aria-hidden="true">
          <Icon name="download" size={24} />
        </span>
        <div>
          <h2 id="wallet-desktop-title">Earn GLOB with the desktop app</h2>
          <p>Download the desktop app for resource sharing, distributed computing and earning tokens.</p>
        </div>
        <Link to="/downloads" className="btn">
          Go to Downloads
        </Link>
      </aside>

      {sending && id ? (
        <SendTokensDialog userId={id} ownAddress={w.address} available={transferable} bonus={w.bonus_balance} onClose={() => setSending(false)} />
      ) : null}
    </div>
  );
}
