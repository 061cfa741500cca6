import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { nodeMutations, type Pool } from '../../api/queries/nodes';
import { formatDateTime } from '../../components/format';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { formatBytes, layerSummary } from './format';
import { NODES_TEXTS, POOLS_TEXTS, POOL_ROLE_LABELS, POOL_STATUS_HINTS, POOL_STATUS_LABELS, STATUS_LABELS } from './texts';
import { failureText } from '../../api/errors';

const STATUS_BADGE = { healthy: 'badge badge-accent', forming: 'badge badge-cyan', degraded: 'badge badge-warn' } as const;

interface Props {
  pool: Pool;
  /** The model's name as the catalog shows it, when the catalog knows it. */
  modelName: string | undefined;
  /** After the pool was dissolved (its card is about to go). */
  onDissolved: (name: string) => void;
}

/** One pool: its model, status (with why, when it cannot serve), each member's part of the layers, and Dissolve. */
export function PoolCard({ pool, modelName, onDissolved }: Props) {
  const dissolve = useMutation(nodeMutations.deletePool());
  const [confirming, setConfirming] = useState(false);
  // Layers are planned once a member coordinates (the model's own layer count may be known before that).
  const planned = pool.model_layers !== null && pool.model_layers > 0 && pool.members.some((m) => m.role !== null);

  const confirmDissolve = () => {
    if (dissolve.isPending) return;
    dissolve.mutate(pool.id, {
      onSuccess: () => {
        setConfirming(false);
        onDissolved(pool.name);
      },
    });
  };

  return (
    <li className="card nodes-card pools-card" data-pool-id={pool.id} data-status={pool.status}>
      <div className="nodes-card-head">
        <h3 className="pools-name">{pool.name}</h3>
        <span className={`${STATUS_BADGE[pool.status]} nodes-status pools-status`}>
          <span className="nodes-status-dot" aria-hidden="true" />
          <span className="visually-hidden">Status: </span>
          {POOL_STATUS_LABELS[pool.status]}
        </span>
      </div>
      <p className="nodes-hint">{POOL_STATUS_HINTS[pool.status]}</p>

      {pool.problem ? <p className="alert alert-warn pools-problem">{pool.problem}</p> : null}

      <dl className="nodes-facts">
        <div>
          <dt>{POOLS_TEXTS.model}</dt>
          <dd>
            {modelName ?? pool.model_id}
            {modelName ? <span className="nodes-muted"> ({pool.model_id})</span> : null}
          </dd>
        </div>
        <div>
          <dt>{POOLS_TEXTS.modelSize}</dt>
          <dd>{pool.model_bytes !== null ? formatBytes(pool.model_bytes) : POOLS_TEXTS.notKnownYet}</dd>
        </div>
        <div>
          <dt>{POOLS_TEXTS.layers}</dt>
          <dd>{pool.model_layers ?? POOLS_TEXTS.notKnownYet}</dd>
        </div>
        <div>
          <dt>{POOLS_TEXTS.created}</dt>
          <dd>
            <time dateTime={pool.created_at}>{formatDateTime(pool.created_at)}</time>
          </dd>
        </div>
      </dl>

      <ul className="pools-members" aria-label={`${POOLS_TEXTS.membersLabel} ${pool.name}`}>
        {pool.members.map((member) => (
          <li key={member.node_id} className="pools-member" data-node-id={member.node_id}>
            <div className="pools-member-head">
              <span className="pools-member-name">{member.name}</span>
              <span className={member.role === 'coordinator' ? 'badge badge-accent' : 'badge'}>
                <span className="visually-hidden">{POOLS_TEXTS.role}: </span>
                {member.role ? POOL_ROLE_LABELS[member.role] : POOLS_TEXTS.noRole}
              </span>
            </div>
            <dl className="pools-member-facts">
              <div>
                <dt>{POOLS_TEXTS.status}</dt>
                <dd>
                  {STATUS_LABELS[member.status]} · {member.ready ? POOLS_TEXTS.ready : POOLS_TEXTS.notReady}
                </dd>
              </div>
              <div className="pools-member-share">
                <dt>{POOLS_TEXTS.layerShare}</dt>
                <dd>
                  {planned ? (
                    <>
                      <span className="pools-bar" aria-hidden="true">
                        <span style={{ width: `${Math.min(1, Math.max(0, member.layer_share)) * 100}%` }} />
                      </span>
                      {layerSummary(member.layers, pool.model_layers ?? 0, member.layer_share)}
                    </>
                  ) : (
                    POOLS_TEXTS.layersNotPlanned
                  )}
                </dd>
              </div>
              <div>
                <dt>{POOLS_TEXTS.memory}</dt>
                <dd>{formatBytes(member.memory_bytes)}</dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>

      <div className="btn-row nodes-card-actions">
        <button
          type="button"
          className="btn btn-sm nodes-btn-danger"
          onClick={() => {
            dissolve.reset();
            setConfirming(true);
          }}
        >
          {POOLS_TEXTS.dissolve}
          <span className="visually-hidden"> {pool.name}</span>
        </button>
      </div>

      {confirming ? (
        <ConfirmDialog
          title={POOLS_TEXTS.dissolveTitle}
          name={pool.name}
          text={POOLS_TEXTS.dissolveText}
          confirmLabel={POOLS_TEXTS.dissolveConfirm}
          busyLabel={POOLS_TEXTS.dissolving}
          cancelLabel={NODES_TEXTS.cancel}
          busy={dissolve.isPending}
          error={dissolve.isError ? failureText(dissolve.error, NODES_TEXTS.actionFailed) : null}
          onConfirm={confirmDissolve}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </li>
  );
}
