import { Card, Stat, formatGlob } from '@glob/ui';
import type { NodeSelf } from './api';
import { TEXTS } from './texts';

const T = TEXTS.earnings;

/** The owner's wallet balance and this computer's rewards, pending and paid, with a way to the web app's wallet. */
export function Earnings({ platform, walletUrl }: { platform: NodeSelf | undefined; walletUrl: string | null }) {
  return (
    <Card title={T.title}>
      {platform ? (
        <>
          <dl className="ui-stats">
            <Stat label={T.balance} value={formatGlob(platform.balance.balance)} unit={TEXTS.glob} />
            <Stat label={T.pending} value={formatGlob(platform.earnings.pending)} unit={TEXTS.glob} />
            <Stat label={T.paid} value={formatGlob(platform.earnings.earned)} unit={TEXTS.glob} />
          </dl>
          <p className="panel-muted">{T.window(platform.earnings.days)}</p>
        </>
      ) : (
        <p className="panel-muted">{TEXTS.pools.unavailable}</p>
      )}
      {walletUrl ? (
        <a className="btn btn-sm" href={walletUrl} target="_blank" rel="noreferrer">
          {T.openWallet}
        </a>
      ) : null}
    </Card>
  );
}
