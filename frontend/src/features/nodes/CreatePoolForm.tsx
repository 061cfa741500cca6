import constants from '@glob/contract/constants.json';
import { useEffect, useId, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import { nodeMutations, type Pool, type ProviderNode } from '../../api/queries/nodes';
import type { ApiModel } from '../../api/queries/inference';
import { useForm } from '../../components/useForm';
import { hostSummary } from './format';
import { validateNodeName } from './NodeName';
import { NODES_TEXTS, POOLS_TEXTS, STATUS_LABELS } from './texts';
import { failureText } from '../../api/errors';

/** The spec's PoolCreate.node_ids: 2-16 nodes. */
const MIN_NODES = constants.fieldLimits.PoolCreate.node_ids.minItems;
const MAX_NODES = constants.fieldLimits.PoolCreate.node_ids.maxItems;

interface Props {
  id: string;
  nodes: ProviderNode[];
  pools: Pool[];
  /** The catalog; undefined while it loads, null when it could not be read. */
  models: ApiModel[] | undefined | null;
  onCreated: (pool: Pool) => void;
  onCancel: () => void;
}

interface PoolForm {
  name: string;
  model_id: string;
  node_ids: ReadonlySet<string>;
}

const EMPTY: PoolForm = { name: '', model_id: '', node_ids: new Set() };

/**
 * Name, model and two or more of the caller's nodes. The model list is the whole catalog, available or not: a model
 * too large for any single node is usually offered by none until a pool serves it. Nodes already in a pool are shown
 * but cannot be chosen (a node belongs to at most one pool).
 */
export function CreatePoolForm({ id, nodes, pools, models, onCreated, onCancel }: Props) {
  const ids = { title: useId(), name: useId(), nameError: useId(), model: useId(), modelHint: useId(), modelError: useId() };
  const nodesHintId = useId();
  const nodesErrorId = useId();
  const create = useMutation(nodeMutations.createPool());
  const nameInput = useRef<HTMLInputElement>(null);
  // The layers follow the coordinator's in the order sent: the order of the list.
  const chosenIds = (chosen: ReadonlySet<string>) => nodes.filter((n) => chosen.has(n.id)).map((n) => n.id);
  const { values, errors, set, onSubmit, busy } = useForm({
    initial: EMPTY,
    validate: ({ name, model_id, node_ids }) => {
      const count = chosenIds(node_ids).length;
      return {
        name: validateNodeName(name) ?? undefined,
        model_id: model_id ? undefined : POOLS_TEXTS.modelRequired,
        node_ids: count < MIN_NODES ? POOLS_TEXTS.nodesTooFew : count > MAX_NODES ? POOLS_TEXTS.nodesTooMany : undefined,
      };
    },
    busy: create.isPending,
    onValid: ({ name, model_id, node_ids }) =>
      create.mutate({ name: name.trim(), model_id, node_ids: chosenIds(node_ids) }, { onSuccess: onCreated }),
  });

  useEffect(() => {
    nameInput.current?.focus();
  }, []);

  const poolOf = new Map(pools.flatMap((pool) => pool.members.map((m) => [m.node_id, pool.name] as const)));
  const free = nodes.filter((n) => !poolOf.has(n.id));

  const toggle = (nodeId: string, on: boolean) => {
    const next = new Set(values.node_ids);
    if (on) next.add(nodeId);
    else next.delete(nodeId);
    set('node_ids', next);
  };

  return (
    <section id={id} className="nodes-allocation pools-create" aria-labelledby={ids.title}>
      <h3 id={ids.title}>{POOLS_TEXTS.createTitle}</h3>
      <form
        onSubmit={onSubmit}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          }
        }}
        noValidate
      >
        <div className="form-row">
          <div className="field">
            <label htmlFor={ids.name}>{POOLS_TEXTS.nameLabel}</label>
            <input
              ref={nameInput}
              id={ids.name}
              className="input"
              name="name"
              maxLength={constants.fieldLimits.PoolCreate.name.maxLength}
              autoComplete="off"
              value={values.name}
              onChange={(e) => set('name', e.target.value)}
              aria-invalid={errors.name ? 'true' : undefined}
              aria-describedby={errors.name ? ids.nameError : undefined}
            />
            {errors.name ? (
              <p id={ids.nameError} className="field-error">
                {errors.name}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor={ids.model}>{POOLS_TEXTS.modelLabel}</label>
            <select
              id={ids.model}
              className="select"
              name="model_id"
              value={values.model_id}
              onChange={(e) => set('model_id', e.target.value)}
              aria-invalid={errors.model_id ? 'true' : undefined}
              aria-describedby={[ids.modelHint, errors.model_id ? ids.modelError : ''].filter(Boolean).join(' ')}
            >
              <option value="">{POOLS_TEXTS.modelChoose}</option>
              {(models ?? []).map((model) => (
                <option key={model.id} value={model.id}>
                  {model.display_name} ({model.parameters})
                </option>
              ))}
            </select>
            <p id={ids.modelHint} className="hint">
              {models === null ? POOLS_TEXTS.modelsError : POOLS_TEXTS.modelHint}
            </p>
            {errors.model_id ? (
              <p id={ids.modelError} className="field-error">
                {errors.model_id}
              </p>
            ) : null}
          </div>
        </div>

        <fieldset className="pools-nodes" aria-describedby={[nodesHintId, errors.node_ids ? nodesErrorId : ''].filter(Boolean).join(' ')}>
          <legend className="label">{POOLS_TEXTS.nodesLegend}</legend>
          <p id={nodesHintId} className="nodes-hint">
            {free.length < MIN_NODES ? POOLS_TEXTS.notEnoughNodes : POOLS_TEXTS.nodesHint}
          </p>
          {nodes.map((node) => {
            const inPool = poolOf.get(node.id);
            return (
              <label key={node.id} className="check pools-node">
                <input
                  type="checkbox"
                  name="node_ids"
                  value={node.id}
                  checked={values.node_ids.has(node.id)}
                  disabled={inPool !== undefined}
                  // So a refused choice moves focus to the first node that can be chosen.
                  aria-invalid={errors.node_ids && inPool === undefined ? 'true' : undefined}
                  onChange={(e) => toggle(node.id, e.target.checked)}
                />
                <span>
                  <span className="pools-node-name">{node.name}</span>
                  <span className="nodes-muted">
                    {' · '}
                    {STATUS_LABELS[node.status]} · {hostSummary(node.host)}
                    {inPool !== undefined ? ` · ${POOLS_TEXTS.alreadyIn} ${inPool}` : ''}
                  </span>
                </span>
              </label>
            );
          })}
          {errors.node_ids ? (
            <p id={nodesErrorId} className="field-error">
              {errors.node_ids}
            </p>
          ) : null}
        </fieldset>

        {create.isError ? (
          <p className="alert alert-error" role="alert">
            {failureText(create.error, NODES_TEXTS.actionFailed)}
          </p>
        ) : null}

        <div className="btn-row">
          <button type="submit" className="btn btn-sm btn-primary" aria-busy={busy || undefined}>
            {busy ? POOLS_TEXTS.creating : POOLS_TEXTS.create}
          </button>
          <button type="button" className="btn btn-sm" onClick={onCancel}>
            {NODES_TEXTS.cancel}
          </button>
        </div>
      </form>
    </section>
  );
}
