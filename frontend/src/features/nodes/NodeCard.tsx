import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { nodeMutations, type NodeUpdate, type ProviderNode } from '../../api/queries/nodes';
import { LOCALE, formatDateTime, formatGlob } from '../../components/format';
import { AllocationForm } from './AllocationForm';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { computeSummary, formatScore, formatShare, hostSummary } from './format';
import { NodeEarnings } from './NodeEarnings';
import { NodeName } from './NodeName';
import { NODES_TEXTS, STATUS_LABELS } from './texts';
import { failureText } from '../../api/errors';

const STATUS_BADGE = { online: 'badge badge-accent', paused: 'badge badge-warn', offline: 'badge' } as const;

interface Props {
  node: ProviderNode;
  /** After the node was revoked (its card is about to go). */
  onRevoked: (name: string) => void;
}

/** One node: name, status, facts and earnings, and the owner's controls (rename, pause, allocation, revoke). */
export function NodeCard({ node, onRevoked }: Props) {
  const update = useMutation(nodeMutations.update());
  const revoke = useMutation(nodeMutations.revoke());
  const [confirming, setConfirming] = useState(false);
  const paused = node.status === 'paused';

  const change = (body: NodeUpdate, done?: () => void) => update.mutate({ id: node.id, body }, { onSuccess: () => done?.() });

  const confirmRevoke = () => {
    if (revoke.isPending) return;
    revoke.mutate(node.id, {
      onSuccess: () => {
        setConfirming(false);
        onRevoked(node.name);
      },
    });
  };

  return (
    <li className="card nodes-card" data-node-id={node.id} data-status={node.status}>
      <div className="nodes-card-head">
        <NodeName name={node.name} busy={update.isPending} onRename={(name, done) => change({ name }, done)} />
        <span className={`${STATUS_BADGE[node.status]} nodes-status`}>
          <span className="nodes-status-dot" aria-hidden="true" />
          <span className="visually-hidden">Status: </span>
          {STATUS_LABELS[node.status]}
        </span>
      </div>
      {node.paused_reason ? <p className="nodes-paused-reason">{node.paused_reason}</p> : null}
      {node.update_required ? <p className="nodes-paused-reason">{NODES_TEXTS.updateRequired}</p> : null}

      <dl className="nodes-facts">
        <div>
          <dt>{NODES_TEXTS.lastSeen}</dt>
          <dd>{node.last_seen_at ? <time dateTime={node.last_seen_at}>{formatDateTime(node.last_seen_at)}</time> : NODES_TEXTS.never}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.uptime}</dt>
          <dd>{formatShare(node.uptime_30d)}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.host}</dt>
          <dd>{hostSummary(node.host)}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.models}</dt>
          <dd>{node.models.length ? node.models.join(', ') : NODES_TEXTS.noModels}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.hardwareScore}</dt>
          <dd>
            {formatScore(node.hardware_score)}
            {node.measured_tokens_per_second !== null ? (
              <span className="nodes-muted"> ({formatGlob(node.measured_tokens_per_second)} tokens/s measured)</span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.compute}</dt>
          <dd>{computeSummary(node.compute)}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.agentVersion}</dt>
          <dd>{node.agent_version ?? NODES_TEXTS.versionUnknown}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.tasksServed}</dt>
          <dd>{node.tasks_served.toLocaleString(LOCALE)}</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.earned}</dt>
          <dd>{formatGlob(node.earned)} GLOB</dd>
        </div>
        <div>
          <dt>{NODES_TEXTS.pending}</dt>
          <dd>{formatGlob(node.pending)} GLOB</dd>
        </div>
      </dl>

      <NodeEarnings nodeId={node.id} />

      <AllocationForm
        nodeName={node.name}
        allocation={node.allocation}
        hasGpu={Boolean(node.host.gpu)}
        busy={update.isPending}
        onSave={(allocation, done) => change({ allocation }, done)}
      />

      {update.isError ? (
        <p className="alert alert-error" role="alert">
          {failureText(update.error, NODES_TEXTS.actionFailed)}
        </p>
      ) : null}

      <div className="btn-row nodes-card-actions">
        <button type="button" className="btn btn-sm" onClick={() => change({ paused: !paused })} disabled={update.isPending}>
          {paused ? NODES_TEXTS.resume : NODES_TEXTS.pause}
          <span className="visually-hidden"> {node.name}</span>
        </button>
        <button
          type="button"
          className="btn btn-sm nodes-btn-danger"
          onClick={() => {
            revoke.reset();
            setConfirming(true);
          }}
        >
          {NODES_TEXTS.revoke}
          <span className="visually-hidden"> {node.name}</span>
        </button>
      </div>

      {confirming ? (
        <ConfirmDialog
          title={NODES_TEXTS.revokeTitle}
          name={node.name}
          text={NODES_TEXTS.revokeText}
          confirmLabel={NODES_TEXTS.revokeConfirm}
          busyLabel={NODES_TEXTS.revoking}
          cancelLabel={NODES_TEXTS.cancel}
          busy={revoke.isPending}
          error={revoke.isError ? failureText(revoke.error, NODES_TEXTS.actionFailed) : null}
          onConfirm={confirmRevoke}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </li>
  );
}
