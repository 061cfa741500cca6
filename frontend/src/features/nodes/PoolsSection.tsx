import { useId, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { inferenceQueries } from '../../api/queries/inference';
import { nodeQueries, type Pool, type ProviderNode } from '../../api/queries/nodes';
import { CreatePoolForm } from './CreatePoolForm';
import { PoolCard } from './PoolCard';
import { POOLS_TEXTS } from './texts';

interface Props {
  /** The caller's nodes, to choose a new pool's members from. */
  nodes: ProviderNode[];
}

/**
 * The caller's pools (nodes serving one model together): each with its status and each member's share of the layers,
 * a form to create one, and Dissolve. The list refreshes with the nodes (every 10 s), so a forming pool turns healthy
 * on its own.
 */
export function PoolsSection({ nodes }: Props) {
  const list = useQuery(nodeQueries.pools());
  const models = useQuery(inferenceQueries.models());
  const formId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const createButton = useRef<HTMLButtonElement>(null);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState('');

  const pools = list.data ?? [];
  const modelName = (id: string) => models.data?.find((m) => m.id === id)?.display_name;

  const closeForm = () => {
    setCreating(false);
    createButton.current?.focus();
  };
  const created = (pool: Pool) => {
    setNotice(`${pool.name} was created.`);
    closeForm();
  };
  const dissolved = (name: string) => {
    setNotice(`${name} was dissolved.`);
    heading.current?.focus();
  };

  return (
    <section className="app-section pools" aria-labelledby="pools-title">
      <div className="app-section-head nodes-card-head pools-head">
        <div>
          <h2 id="pools-title" ref={heading} tabIndex={-1}>
            {POOLS_TEXTS.title}
          </h2>
          <p className="nodes-hint">{POOLS_TEXTS.intro}</p>
        </div>
        <button
          ref={createButton}
          type="button"
          className="btn btn-sm"
          aria-expanded={creating}
          aria-controls={creating ? formId : undefined}
          onClick={() => setCreating((on) => !on)}
        >
          {POOLS_TEXTS.create}
        </button>
      </div>

      {creating ? (
        <CreatePoolForm
          id={formId}
          nodes={nodes}
          pools={pools}
          models={models.isError ? null : models.data}
          onCreated={created}
          onCancel={closeForm}
        />
      ) : null}

      <p className="visually-hidden" role="status">
        {notice}
      </p>

      {list.isLoading ? (
        <p className="card nodes-empty" role="status">
          {POOLS_TEXTS.loading}
        </p>
      ) : list.isError && !list.data ? (
        <p className="alert alert-error" role="alert">
          {POOLS_TEXTS.loadError}
        </p>
      ) : pools.length === 0 ? (
        <div className="card nodes-empty">
          <p className="nodes-empty-title">{POOLS_TEXTS.emptyTitle}</p>
          <p>{POOLS_TEXTS.emptyText}</p>
        </div>
      ) : (
        <ul className="nodes-list" aria-label={POOLS_TEXTS.listLabel}>
          {pools.map((pool) => (
            <PoolCard key={pool.id} pool={pool} modelName={modelName(pool.model_id)} onDissolved={dissolved} />
          ))}
        </ul>
      )}
    </section>
  );
}
