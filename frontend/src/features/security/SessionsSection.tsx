import { useMutation, useQuery } from '@tanstack/react-query';
import type { components } from '@glob/contract';
import { useId, useState } from 'react';
import { failureText } from '../../api/errors';
import { securityQueries, sessionMutations } from '../../api/queries/security';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { TableHead } from '../../components/TableHead';
import { formatDateTime } from '../../components/format';
import { SECURITY_TEXTS } from './texts';

const T = SECURITY_TEXTS.sessions;

type Session = components['schemas']['Session'];

/** "Sessions": where the account is signed in, the current one marked, each other one can be ended, or all at once. */
export function SessionsSection() {
  const list = useQuery(securityQueries.sessions());
  const revoke = useMutation(sessionMutations.revoke());
  const revokeOthers = useMutation(sessionMutations.revokeOthers());
  const [ending, setEnding] = useState<Session | null>(null);
  const [endingOthers, setEndingOthers] = useState(false);
  const titleId = useId();
  const sessions = list.data ?? [];
  const others = sessions.filter((s) => !s.current);

  return (
    <section className="card app-section" aria-labelledby={titleId}>
      <h2 id={titleId}>{T.title}</h2>
      <p>{T.intro}</p>
      {list.isPending ? (
        <p role="status">{T.loading}</p>
      ) : list.isError && !list.data ? (
        <p className="alert alert-error" role="alert">
          {T.loadError}
        </p>
      ) : (
        <>
          <div className="security-sessions-wrap">
            <table className="security-sessions">
              <TableHead columns={T.columns} action={T.end} />
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.id} data-testid="session-row" aria-current={s.current ? 'true' : undefined}>
                    <td>
                      <span title={s.user_agent || undefined}>{s.device}</span>
                      {s.current ? <span className="security-session-current">{T.current}</span> : null}
                    </td>
                    <td>{s.ip ?? T.unknownIp}</td>
                    <td>{formatDateTime(s.created_at)}</td>
                    <td>{formatDateTime(s.last_used_at)}</td>
                    <td>
                      {s.current ? null : (
                        <button
                          type="button"
                          className="btn btn-ghost btn-sm"
                          onClick={() => {
                            revoke.reset();
                            setEnding(s);
                          }}
                        >
                          {T.end}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {others.length > 0 ? (
            <div className="security-actions">
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => {
                  revokeOthers.reset();
                  setEndingOthers(true);
                }}
              >
                {T.endOthers}
              </button>
            </div>
          ) : null}
        </>
      )}

      {ending ? (
        <ConfirmDialog
          title={T.endTitle}
          name={`${ending.device}${ending.ip ? ` (${ending.ip})` : ''}`}
          text={T.endText}
          confirmLabel={T.end}
          busyLabel={T.ending}
          cancelLabel={T.cancel}
          busy={revoke.isPending}
          error={revoke.isError ? failureText(revoke.error, T.failed) : null}
          onConfirm={() => revoke.mutate(ending.id, { onSuccess: () => setEnding(null) })}
          onClose={() => setEnding(null)}
        />
      ) : null}
      {endingOthers ? (
        <ConfirmDialog
          title={T.endOthersTitle}
          name={T.endOthersName}
          text={T.endOthersText}
          confirmLabel={T.endOthers}
          busyLabel={T.endingOthers}
          cancelLabel={T.cancel}
          busy={revokeOthers.isPending}
          error={revokeOthers.isError ? failureText(revokeOthers.error, T.failed) : null}
          onConfirm={() => revokeOthers.mutate(undefined, { onSuccess: () => setEndingOthers(false) })}
          onClose={() => setEndingOthers(false)}
        />
      ) : null}
    </section>
  );
}
