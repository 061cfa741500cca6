import { useEffect, useId, useRef, useState } from 'react';
import type { JoinToken } from '../../api/queries/nodes';
import { copyText } from '../../components/clipboard';
import { formatDateTime } from '../../components/format';
import { NODES_TEXTS } from './texts';

interface Props {
  token: JoinToken;
  /** Creates another token (the one shown works once). */
  onAgain: () => void;
  againBusy: boolean;
  onDone: () => void;
}

/** The pairing command of a fresh join token, exactly as the API wrote it, with a copy button. */
export function JoinCommand({ token, onAgain, againBusy, onDone }: Props) {
  const titleId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // A new token: its panel is announced by moving focus to it, and an earlier "Copied!" no longer applies.
  const [shown, setShown] = useState(token.join_token);
  if (shown !== token.join_token) {
    setShown(token.join_token);
    setCopied(null);
  }
  useEffect(() => {
    heading.current?.focus();
  }, [token.join_token]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const copy = async () => {
    const ok = await copyText(token.command);
    setCopied(ok ? 'yes' : 'no');
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(null), 2_000);
  };

  return (
    <section className="card nodes-pair" aria-labelledby={titleId}>
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        {NODES_TEXTS.pairTitle}
      </h2>
      <p>{NODES_TEXTS.pairStep}</p>
      <div className="nodes-command">
        <pre>
          <code data-testid="join-command">{token.command}</code>
        </pre>
        <button type="button" className="btn btn-sm btn-primary" onClick={() => void copy()}>
          {NODES_TEXTS.copyCommand}
        </button>
      </div>
      <p className="nodes-copy-status" role="status">
        {copied === 'yes' ? NODES_TEXTS.copied : copied === 'no' ? NODES_TEXTS.copyFailed : ''}
      </p>
      <p className="nodes-pair-note">
        {NODES_TEXTS.pairValidity}{' '}
        <span>
          {NODES_TEXTS.pairExpires}: <time dateTime={token.expires_at}>{formatDateTime(token.expires_at)}</time>.
        </span>
      </p>
      <p className="nodes-pair-note">{NODES_TEXTS.pairAfter}</p>
      {token.agent && (
        <p className="nodes-pair-note nodes-pair-package" data-testid="join-package">
          {NODES_TEXTS.pairPackage(token.agent.version, token.agent.sha256)}
        </p>
      )}
      <div className="btn-row">
        <button type="button" className="btn btn-sm" onClick={onAgain} disabled={againBusy}>
          {againBusy ? NODES_TEXTS.pairing : NODES_TEXTS.pairAgain}
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onDone}>
          {NODES_TEXTS.pairHide}
        </button>
      </div>
    </section>
  );
}
