import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Card, formatBytes, formatShare } from '@glob/ui';
import type { PanelState } from '../../src/desktop/panel-api';
import { panelQueries, request, type NodeSelf, type Schemas } from './api';
import { ActionError } from './actions';
import { TEXTS } from './texts';

/** This computer's pool (a node is in at most one) with its members, or a form to pool it with the owner's others. */
export function P2PNetwork({ platform, state }: { platform: NodeSelf | undefined; state: PanelState }) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: panelQueries.platform(true).queryKey });
  const leave = useMutation({
    mutationFn: (poolId: string) => request<void>('DELETE', `/local/pools/${encodeURIComponent(poolId)}`),
    onSuccess: refresh,
  });

  return (
    <Card title={TEXTS.pools.title}>
      <p>{TEXTS.pools.intro}</p>
      {!platform ? <p className="panel-muted">{TEXTS.pools.unavailable}</p> : null}
      {platform && platform.pools.length === 0 ? <p className="panel-muted">{TEXTS.pools.none}</p> : null}
      {platform?.pools.map((pool) => (
        <article key={pool.id} className="panel-pool" aria-label={pool.name}>
          <div className="panel-pool-head">
            <h3>{pool.name}</h3>
            <span className={`badge badge-${pool.status}`}>{TEXTS.pools.status[pool.status]}</span>
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              aria-label={TEXTS.pools.leaveNamed(pool.name)}
              disabled={leave.isPending}
              onClick={() => leave.mutate(pool.id)}
            >
              {TEXTS.pools.leave}
            </button>
          </div>
          <p className="panel-muted">
            {TEXTS.pools.model}: {pool.model_id}
            {pool.model_bytes !== null ? ` · ${formatBytes(pool.model_bytes)}` : null}
          </p>
          {pool.problem ? <p className="panel-note">{pool.problem}</p> : null}
          <ul className="panel-list" aria-label={TEXTS.pools.members}>
            {pool.members.map((m) => (
              <li key={m.node_id} className="panel-member">
                <span>{m.name}</span>
                <span className="panel-muted">
                  {m.role ? TEXTS.pools[m.role] : '—'} · {m.status} · {m.layers} layers ({formatShare(m.layer_share)})
                </span>
              </li>
            ))}
          </ul>
        </article>
      ))}
      <ActionError error={leave.error} />
      {platform && platform.pools.length === 0 ? <CreatePool platform={platform} state={state} onCreated={refresh} /> : null}
    </Card>
  );
}

/** A pool of this computer and the owner's other computers the owner ticks, serving one model. */
function CreatePool({ platform, state, onCreated }: { platform: NodeSelf; state: PanelState; onCreated: () => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [others, setOthers] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (body: Schemas['PoolCreate']) => request<Schemas['Pool']>('POST', '/local/pools', body),
    onSuccess: () => {
      setName('');
      setModel('');
      setOthers([]);
      onCreated();
    },
  });
  const candidates = platform.owner_nodes.filter((n) => n.id !== platform.node.id);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name: name.trim(), model_id: model.trim(), node_ids: [platform.node.id, ...others] });
  };
  const tick = (nodeId: string, on: boolean) => setOthers((list) => (on ? [...list, nodeId] : list.filter((n) => n !== nodeId)));

  return (
    <form className="panel-create-pool" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{TEXTS.pools.createTitle}</h3>
      {candidates.length === 0 ? (
        <p className="panel-muted">{TEXTS.pools.noOthers}</p>
      ) : (
        <>
          <div className="panel-field">
            <label htmlFor={`${id}-name`}>{TEXTS.pools.name}</label>
            <input id={`${id}-name`} className="panel-input" required maxLength={60} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="panel-field">
            <label htmlFor={`${id}-model`}>{TEXTS.pools.modelId}</label>
            <input
              id={`${id}-model`}
              className="panel-input"
              required
              list={`${id}-models`}
              value={model}
              onChange={(e) => setModel(e.target.value)}
            />
            <datalist id={`${id}-models`}>
              {state.models.map((m) => (
                <option key={m.id} value={m.id} />
              ))}
            </datalist>
          </div>
          <fieldset className="panel-fieldset">
            <legend>{TEXTS.pools.others}</legend>
            {candidates.map((n) => (
              <label key={n.id} className="panel-check">
                <input type="checkbox" checked={others.includes(n.id)} onChange={(e) => tick(n.id, e.target.checked)} />
                {n.name} <span className="panel-muted">({n.status})</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" className="btn btn-sm" disabled={create.isPending || others.length === 0}>
            {TEXTS.pools.create}
          </button>
        </>
      )}
      <ActionError error={create.error} />
    </form>
  );
}
