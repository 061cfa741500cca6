import { useMutation, useQuery } from '@tanstack/react-query';
import { Card } from '@glob/ui';
import { PanelRequestError, panelQueries, request } from './api';
import { ActionError } from './actions';
import { Analytics } from './Analytics';
import { Earnings } from './Earnings';
import { Header } from './Header';
import { Pairing } from './Pairing';
import { P2PNetwork } from './Pools';
import { ResourceSharing } from './Sharing';
import { TEXTS } from './texts';
import { Updates } from './Updates';

/**
 * The desktop app's control panel: the app's state every 2 s, the platform's figures every 10 s once paired; pairing
 * first, then sharing, pools, analytics, earnings and what is to come.
 */
export function App() {
  const state = useQuery(panelQueries.state());
  const paired = state.data?.node != null;
  const platform = useQuery(panelQueries.platform(paired));
  const quit = useMutation({ mutationFn: () => request<void>('POST', '/local/quit') });

  if (quit.isSuccess) {
    return (
      <main className="panel">
        <p role="status" className="panel-center">
          {TEXTS.quitting}
        </p>
      </main>
    );
  }
  if (!state.data) {
    return (
      <main className="panel">
        <p role={state.isError ? 'alert' : 'status'} className="panel-center">
          {state.error instanceof PanelRequestError && state.error.status === 403
            ? TEXTS.notOpenedByApp
            : state.isError
              ? TEXTS.unreachable
              : TEXTS.loading}
        </p>
      </main>
    );
  }

  const s = state.data;
  const onQuit = () => {
    if (window.confirm(TEXTS.quitConfirm)) quit.mutate();
  };
  return (
    <div className="panel">
      <Header state={s} />
      {state.isError ? (
        <p className="panel-alert" role="alert">
          {TEXTS.unreachable}
        </p>
      ) : null}
      <main className="panel-sections">
        {s.phase === 'unpaired' || s.phase === 'pairing' || !s.node ? (
          <Pairing state={s} />
        ) : (
          <>
            <ResourceSharing state={s} />
            <P2PNetwork platform={platform.data} state={s} />
            <Analytics platform={platform.data} />
            <Earnings platform={platform.data} walletUrl={s.wallet_url} />
          </>
        )}
        <Card title={TEXTS.training.title}>
          <p>{TEXTS.training.coming}</p>
        </Card>
      </main>
      <footer className="panel-footer">
        <Updates state={s} />
        <button type="button" className="btn btn-danger" onClick={onQuit} disabled={quit.isPending}>
          {TEXTS.quit}
        </button>
        <ActionError error={quit.error} />
      </footer>
    </div>
  );
}
