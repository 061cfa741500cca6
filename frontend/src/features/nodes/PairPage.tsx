import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { ApiError, failureText } from '../../api/errors';
import { nodeMutations, nodeQueries, type PendingDevice } from '../../api/queries/nodes';
import { formatDateTime } from '../../components/format';
import { formatBytes } from './format';
import { PAIR_PATH, forgetPairCode, pairCodeParam } from './pairCode';
import { NODES_TEXTS, PAIR_TEXTS } from './texts';
import './nodes.css';
import './pair.css';

/** What a failed lookup or confirmation shows: an unknown, used or expired code (or one that cannot be a code) says so. */
function failure(error: unknown): string {
  if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return PAIR_TEXTS.unknownCode;
  return failureText(error, NODES_TEXTS.actionFailed);
}

/** The machine's GPU as the nodes list writes it: its name and memory, or "CPU only". */
function gpuText(host: PendingDevice['host']): string {
  if (!host.gpu) return PAIR_TEXTS.noGpu;
  return host.vram_bytes ? `${host.gpu} (${formatBytes(host.vram_bytes)})` : host.gpu;
}

/**
 * /app/pair?code=…: pairing a machine without a token to copy (RFC 8628's device flow). The machine's app shows a code
 * and opens this page with it; the owner sees which machine asks (its name, facts and the address it asked from) and
 * confirms it, or cancels. Once confirmed, the machine pairs itself at its next poll and appears on "Your nodes".
 */
export function PairPage() {
  const code = useSearch({ from: '/app/_shell/pair', select: (search) => search.code });
  const navigate = useNavigate();
  const approve = useMutation(nodeMutations.approvePendingDevice());
  // Once confirmed, the code is used up: it is not looked up again.
  const lookup = useQuery({ ...nodeQueries.pendingDevice(code ?? ''), enabled: Boolean(code) && !approve.isSuccess });

  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const machineTitleId = useId();
  const doneTitleId = useId();
  const input = useRef<HTMLInputElement>(null);
  const doneHeading = useRef<HTMLHeadingElement>(null);
  const [value, setValue] = useState(code ?? '');
  const [fieldError, setFieldError] = useState<string | null>(null);

  // Signed in on this page: a code kept while signing in has done its work.
  useEffect(() => forgetPairCode(), []);

  // A code from the address (the machine's link, or one looked up here) is what the field shows.
  const [fieldFor, setFieldFor] = useState(code);
  if (fieldFor !== code) {
    setFieldFor(code);
    setValue(code ?? '');
  }

  // The confirmation replaces the form: focus moves to its heading, which announces it.
  useEffect(() => {
    if (approve.isSuccess) doneHeading.current?.focus();
  }, [approve.isSuccess]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = pairCodeParam(value);
    if (!next) {
      setFieldError(PAIR_TEXTS.codeRequired);
      input.current?.focus();
      return;
    }
    setFieldError(null);
    approve.reset();
    if (next === code) void lookup.refetch();
    else void navigate({ to: PAIR_PATH, search: { code: next }, replace: true });
  };

  const device = lookup.data;
  const confirm = () => {
    if (!device || approve.isPending) return;
    approve.mutate(device.user_code);
  };

  return (
    <div className="app-page nodes pair">
      <header className="app-page-head">
        <h1>{PAIR_TEXTS.title}</h1>
        <p>{PAIR_TEXTS.intro}</p>
      </header>

      {approve.isSuccess ? (
        <section className="card pair-card pair-done" aria-labelledby={doneTitleId}>
          <h2 id={doneTitleId} ref={doneHeading} tabIndex={-1}>
            {PAIR_TEXTS.doneTitle}
          </h2>
          <p>{PAIR_TEXTS.done(approve.data.name)}</p>
          <div className="btn-row">
            <Link to="/app/nodes" className="btn btn-primary">
              {PAIR_TEXTS.toNodes}
            </Link>
          </div>
        </section>
      ) : (
        <>
          <form className="card pair-card pair-form" onSubmit={onSubmit} noValidate>
            <div className="field">
              <label htmlFor={inputId}>{PAIR_TEXTS.codeLabel}</label>
              <p id={hintId} className="hint">
                {PAIR_TEXTS.codeHint}
              </p>
              <div className="pair-code-row">
                <input
                  ref={input}
                  id={inputId}
                  className="input pair-code-input"
                  name="code"
                  autoComplete="off"
                  autoCapitalize="characters"
                  spellCheck={false}
                  value={value}
                  onChange={(e) => {
                    setValue(e.target.value);
                    setFieldError(null);
                  }}
                  aria-invalid={fieldError ? 'true' : undefined}
                  aria-describedby={fieldError ? `${hintId} ${errorId}` : hintId}
                />
                <button type="submit" className="btn" disabled={lookup.isFetching} aria-busy={lookup.isFetching || undefined}>
                  {PAIR_TEXTS.lookUp}
                </button>
              </div>
              {fieldError ? (
                <p id={errorId} className="field-error">
                  {fieldError}
                </p>
              ) : null}
            </div>
          </form>

          {!code ? null : lookup.isPending ? (
            <p className="card pair-card" role="status">
              {PAIR_TEXTS.lookingUp}
            </p>
          ) : lookup.isError ? (
            <p className="alert alert-error" role="alert">
              {failure(lookup.error)}
            </p>
          ) : device ? (
            <section className="card pair-card pair-machine" aria-labelledby={machineTitleId} aria-busy={lookup.isFetching || undefined}>
              <h2 id={machineTitleId}>{PAIR_TEXTS.machineTitle}</h2>
              <dl className="nodes-facts pair-facts">
                <div>
                  <dt>{PAIR_TEXTS.code}</dt>
                  <dd className="pair-code">{device.user_code}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.name}</dt>
                  <dd>{device.name}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.hostname}</dt>
                  <dd>{device.host.hostname}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.system}</dt>
                  <dd>{`${device.host.os}/${device.host.arch}`}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.cpuCores}</dt>
                  <dd>{device.host.cpu_cores}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.memory}</dt>
                  <dd>{formatBytes(device.host.memory_bytes)}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.gpu}</dt>
                  <dd>{gpuText(device.host)}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.ip}</dt>
                  <dd>{device.ip ?? PAIR_TEXTS.ipUnknown}</dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.asked}</dt>
                  <dd>
                    <time dateTime={device.created_at}>{formatDateTime(device.created_at)}</time>
                  </dd>
                </div>
                <div>
                  <dt>{PAIR_TEXTS.expires}</dt>
                  <dd>
                    <time dateTime={device.expires_at}>{formatDateTime(device.expires_at)}</time>
                  </dd>
                </div>
              </dl>
              <p className="alert alert-warn">{PAIR_TEXTS.check}</p>
              {approve.isError ? (
                <p className="alert alert-error" role="alert">
                  {failure(approve.error)}
                </p>
              ) : null}
              <div className="btn-row pair-actions">
                <button
                  type="button"
                  className="btn btn-primary"
                  onClick={confirm}
                  disabled={approve.isPending}
                  aria-busy={approve.isPending || undefined}
                >
                  {approve.isPending ? PAIR_TEXTS.confirming : PAIR_TEXTS.confirm}
                </button>
                <Link to="/app/nodes" className="btn">
                  {PAIR_TEXTS.cancel}
                </Link>
              </div>
            </section>
          ) : null}
        </>
      )}
    </div>
  );
}
