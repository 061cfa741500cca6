import { useRef, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { failureText } from '../../api/errors';
import { nodeMutations, nodeQueries } from '../../api/queries/nodes';
import { Icon } from '../../components/Icon';
import { JoinCommand } from './JoinCommand';
import { NodeCard } from './NodeCard';
import { PoolsSection } from './PoolsSection';
import { NODES_TEXTS } from './texts';
import './nodes.css';

/**
 * "Your nodes": the provider's machines (status, last seen, uptime, host, models, score, allocation, tasks, GLOB
 * earned and pending), the desktop app as the way to share a computer (it pairs by a code confirmed at /app/pair), a
 * server paired with a fresh join token, and renaming, pausing, allocating and revoking;
 * below them, the pools those machines form to serve a model together.
 * The list refreshes every 10 s (nodeQueries.list), so a machine that has just paired appears on its own.
 */
export function NodesPage() {
  const list = useQuery(nodeQueries.list());
  const pair = useMutation(nodeMutations.createJoinToken());
  const heading = useRef<HTMLHeadingElement>(null);
  const [notice, setNotice] = useState('');

  const nodes = list.data ?? [];
  const pairError = pair.isError ? failureText(pair.error, NODES_TEXTS.actionFailed) : null;

  const revoked = (name: string) => {
    setNotice(`${name} was revoked.`);
    heading.current?.focus();
  };

  return (
    <div className="app-page nodes">
      <header className="app-page-head app-page-head-row nodes-head">
        <div>
          <h1 ref={heading} tabIndex={-1}>
            {NODES_TEXTS.title}
          </h1>
          <p>{NODES_TEXTS.intro}</p>
        </div>
        <button type="button" className="btn" onClick={() => pair.mutate()} disabled={pair.isPending} aria-busy={pair.isPending || undefined}>
          <Icon name="network" size={18} />
          {pair.isPending && !pair.data ? NODES_TEXTS.pairing : NODES_TEXTS.pairButton}
        </button>
      </header>

      <section className="card nodes-desktop" aria-labelledby="nodes-desktop-title">
        <div>
          <h2 id="nodes-desktop-title">{NODES_TEXTS.desktopTitle}</h2>
          <p>{NODES_TEXTS.desktopText}</p>
          <p className="nodes-pair-note">
            {NODES_TEXTS.serverText} {NODES_TEXTS.pairButton}.
          </p>
        </div>
        <Link to="/downloads" className="btn btn-primary">
          <Icon name="download" size={18} />
          {NODES_TEXTS.desktopLink}
        </Link>
      </section>

      {pairError ? (
        <p className="alert alert-error" role="alert">
          {pairError}
        </p>
      ) : null}

      {pair.data ? <JoinCommand token={pair.data} onAgain={() => pair.mutate()} againBusy={pair.isPending} onDone={() => pair.reset()} /> : null}

      <p className="visually-hidden" role="status">
        {notice}
      </p>

      <section className="app-section" aria-labelledby="nodes-list-title">
        <h2 id="nodes-list-title" className="visually-hidden">
          {NODES_TEXTS.listLabel}
        </h2>
        {list.isLoading ? (
          <p className="card nodes-empty" role="status">
            {NODES_TEXTS.loading}
          </p>
        ) : list.isError && !list.data ? (
          <p className="alert alert-error" role="alert">
            {NODES_TEXTS.loadError}
          </p>
        ) : nodes.length === 0 ? (
          <div className="card nodes-empty">
            <p className="nodes-empty-title">{NODES_TEXTS.emptyTitle}</p>
            <p>{NODES_TEXTS.emptyText}</p>
          </div>
        ) : (
          <ul className="nodes-list">
            {nodes.map((node) => (
              <NodeCard key={node.id} node={node} onRevoked={revoked} />
            ))}
          </ul>
        )}
      </section>

      {/* Pools are made of nodes: without any, the section would only repeat the hint above. */}
      {nodes.length > 0 ? <PoolsSection nodes={nodes} /> : null}
    </div>
  );
}
