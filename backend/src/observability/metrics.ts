import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Every Prometheus metric of the platform, defined once. The API and the worker each expose their own registry
 * (label `process`); Prometheus adds them up. What lives in PostgreSQL or Redis (queue depth, nodes online, the
 * ledger, rewards) is read at scrape time by the API only (see MetricsService), so it is counted once however
 * many processes run; what happens inside a process (a request, a reply) is observed where it happens.
 */
export const registry = new Registry();

let defaultsOn = false;
/** Node's own process metrics (CPU, memory, event-loop lag) and which process this is. */
export function startProcessMetrics(process: 'api' | 'worker'): void {
  registry.setDefaultLabels({ process });
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** Seconds buckets from 5 ms to a minute: HTTP requests, queue waits and first tokens all fall in it. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequestDuration = new Histogram({
  name: 'glob_http_request_duration_seconds',
  help: 'HTTP requests by route template, method and status, from the first byte in to the last byte out.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const queueJobs = new Gauge({
  name: 'glob_queue_jobs',
  help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, completed and failed kept for inspection).',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const queueWait = new Histogram({
  name: 'glob_queue_wait_seconds',
  help: 'How long a job waited in its queue before a worker or a node took it.',
  labelNames: ['queue'] as const,
  buckets: SECONDS,
  registers: [registry],
});

/** Who generated a reply: the in-cluster worker, a provider's node, or a pool of nodes (its coordinator). */
export type GeneratorKind = 'worker' | 'remote' | 'pool';

export const timeToFirstToken = new Histogram({
  name: 'glob_inference_time_to_first_token_seconds',
  help: "From the reply's request to its first token reaching the stream, queue wait included.",
  labelNames: ['model', 'kind'] as const,
  buckets: SECONDS,
  registers: [registry],
});

export const tokensPerSecond = new Histogram({
  name: 'glob_inference_tokens_per_second',
  help: "A reply's completion tokens per second after its first token.",
  labelNames: ['model', 'kind'] as const,
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000],
  registers: [registry],
});

export const replies = new Counter({
  name: 'glob_inference_replies_total',
  help: 'Replies that ended, by model, generator kind and outcome (completed or failed).',
  labelNames: ['model', 'kind', 'outcome'] as const,
  registers: [registry],
});

export const inferenceTokens = new Counter({
  name: 'glob_inference_tokens_total',
  help: 'Tokens of completed replies as the platform counted them (prompt and completion).',
  labelNames: ['model', 'kind', 'type'] as const,
  registers: [registry],
});

export const activeStreams = new Gauge({
  name: 'glob_active_streams',
  help: 'Reply streams this API process is sending to clients right now.',
  registers: [registry],
});

export const nodesOnline = new Gauge({
  name: 'glob_nodes_online',
  help: 'Live nodes taking jobs, by model and kind (worker, remote, pool).',
  labelNames: ['model', 'kind'] as const,
  registers: [registry],
});

/*
 * No metric is labelled per node, user, key or conversation: such labels grow without bound, and a node's name is
 * chosen by its owner (personal data) while whoever reads metrics may not read the admin view. Nodes are counted by
 * bounded labels (catalog model, kind, status); a failing node is named by id in the API's log instead.
 */

export const nodeTasks = new Gauge({
  name: 'glob_node_tasks_last_hour',
  help: 'Tasks nodes ended in the last hour, by model, kind (worker, remote, pool) and status (completed or failed).',
  labelNames: ['model', 'kind', 'status'] as const,
  registers: [registry],
});

export const nodesWithFailures = new Gauge({
  name: 'glob_nodes_with_failed_tasks_last_hour',
  help: 'Nodes that failed a task in the last hour; failing="true": at least 5, more than half of their tasks (the API log names each).',
  labelNames: ['failing'] as const,
  registers: [registry],
});

/** A failing node: at least 5 failed tasks in the last hour, and more than half of all the tasks it ended then. */
export function isFailingNode(failed: number, completed: number): boolean {
  return failed >= 5 && failed > completed;
}

export const ledgerTransactions = new Counter({
  name: 'glob_ledger_transactions_total',
  help: 'Ledger transactions by type and status, as recorded in PostgreSQL.',
  labelNames: ['type', 'status'] as const,
  registers: [registry],
});

export const ledgerFlow = new Counter({
  name: 'glob_ledger_milliglob_total',
  help: 'milli-GLOB moved by completed ledger transactions, by type (purchases, transfers, charges, rewards…).',
  labelNames: ['type'] as const,
  registers: [registry],
});

export const holdsOpen = new Gauge({
  name: 'glob_ledger_holds_open',
  help: 'Holds reserved for replies and not settled yet.',
  registers: [registry],
});

export const holdsOpenUnits = new Gauge({
  name: 'glob_ledger_holds_open_milliglob',
  help: 'milli-GLOB reserved by open holds.',
  registers: [registry],
});

export const rewardUnits = new Gauge({
  name: 'glob_rewards_milliglob',
  help: "Providers' rewards in milli-GLOB: pending (earned, not yet paid) and paid (all time).",
  labelNames: ['state'] as const,
  registers: [registry],
});

export const errors = new Counter({
  name: 'glob_errors_total',
  help: 'Errors by type: API error codes answered (4xx and 5xx) and replies that failed.',
  labelNames: ['type'] as const,
  registers: [registry],
});

/**
 * Who may read /metrics: 404 when METRICS_TOKEN is unset (metrics are never public by default), 401 without the
 * token, else allowed. Compared as hashes in constant time, so the answer's timing says nothing about the token.
 */
export function scrapeAccess(token: string | undefined, authorization: string | undefined): 200 | 401 | 404 {
  if (!token) return 404;
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) ? 200 : 401;
}

/** How a reply ran, as its generator saw it: who generated it and when its first token reached the stream (ms). */
export interface ReplyRun {
  kind: GeneratorKind;
  firstTokenAt?: number;
}

/**
 * One ended reply in the inference metrics. Time to first token counts from the request (`requestedAt`), queue wait
 * included, as the requester waited; tokens per second from the first token to the end.
 */
export function observeReply(
  model: string,
  run: ReplyRun | undefined,
  outcome: 'completed' | 'failed',
  usage: { promptTokens: number; completionTokens: number },
  requestedAt: number | undefined,
  endedAt = Date.now(),
): void {
  const kind = run?.kind ?? 'unassigned';
  replies.inc({ model, kind, outcome });
  if (outcome === 'failed') return;
  inferenceTokens.inc({ model, kind, type: 'prompt' }, usage.promptTokens);
  inferenceTokens.inc({ model, kind, type: 'completion' }, usage.completionTokens);
  const first = run?.firstTokenAt;
  if (first === undefined) return;
  if (requestedAt !== undefined && first >= requestedAt) timeToFirstToken.observe({ model, kind }, (first - requestedAt) / 1000);
  if (usage.completionTokens > 1 && endedAt > first)
    tokensPerSecond.observe({ model, kind }, (usage.completionTokens - 1) / ((endedAt - first) / 1000));
}
