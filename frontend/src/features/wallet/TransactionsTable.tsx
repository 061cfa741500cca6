import { useInfiniteQuery } from '@tanstack/react-query';
import { walletQueries } from '../../api/queries/wallet';
import { formatDateTime, formatGlob } from '../../components/format';
import { transactionSign, typeLabel } from './format';

const STATUS_BADGE = { completed: 'badge badge-accent', pending: 'badge badge-warn', failed: 'badge' } as const;
const STATUS_LABEL = { completed: 'Completed', pending: 'Pending', failed: 'Failed' } as const;

/** Type, Description, Amount, Status, Date; polled every 30 s; 50 per page. */
export function TransactionsTable({ userId }: { userId: string }) {
  const query = useInfiniteQuery(walletQueries.transactions(userId));
  // A failed read is an empty list (the failure is logged by the query).
  const rows = query.data?.pages.flatMap((p) => p.transactions) ?? [];

  return (
    <section className="app-section" aria-labelledby="wallet-transactions">
      <h2 id="wallet-transactions">Recent Transactions</h2>
      {query.isLoading ? (
        <p className="card wallet-empty" role="status">
          Loading transactions...
        </p>
      ) : rows.length === 0 ? (
        <div className="card wallet-empty">
          <p className="wallet-empty-title">No transactions yet</p>
          <p>Purchases, AI usage, transfers and rewards will appear here.</p>
        </div>
      ) : (
        <div className="card tx-card">
          {/* On a phone each transaction is a small card (wallet.css); wider, a table that may scroll sideways, focusable so a keyboard can scroll it too. */}
          <div className="tx-scroll" role="region" aria-label="Transactions table, scrollable" tabIndex={0}>
            <table className="tx-table">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Description</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Date</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((tx) => {
                  const sign = transactionSign(tx);
                  return (
                    <tr key={`${tx.id}-${tx.direction}`}>
                      <td className="tx-type">{typeLabel(tx.type)}</td>
                      <td className="tx-desc">{tx.description}</td>
                      <td className="num tx-amount-cell">
                        <span className={sign === '+' ? 'tx-amount credit' : 'tx-amount debit'}>
                          {sign}
                          {formatGlob(tx.amount)} GLOB
                        </span>
                      </td>
                      <td className="tx-status">
                        <span className={STATUS_BADGE[tx.status]}>{STATUS_LABEL[tx.status]}</span>
                      </td>
                      <td className="tx-date">
                        <time dateTime={tx.timestamp}>{formatDateTime(tx.timestamp)}</time>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {query.hasNextPage ? (
            <div className="tx-more">
              <button type="button" className="btn btn-sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                {query.isFetchingNextPage ? 'Loading...' : 'Load more'}
              </button>
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}
