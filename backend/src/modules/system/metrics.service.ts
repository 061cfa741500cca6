import { Inject, Injectable, Logger, NotFoundException, UnauthorizedException } from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { platformQueues, type AnyQueue } from '../../jobs/jobs';
import { JobsService } from '../../jobs/jobs.service';
import {
  holdsOpen,
  holdsOpenUnits,
  isFailingNode,
  ledgerFlow,
  ledgerTransactions,
  nodesOnline,
  nodeTasks,
  nodesWithFailures,
  queueJobs,
  registry,
  rewardUnits,
  scrapeAccess,
} from '../../observability/metrics';
import { CatalogService } from '../catalog/catalog.service';
import { StatsRepository } from './stats.repository';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;

/**
 * GET /metrics of the API: what lives in PostgreSQL and Redis (queue depth, nodes online, the ledger, rewards) is
 * read at scrape time, here only, so it is counted once however many API and worker processes run.
 */
@Injectable()
export class MetricsService {
  private readonly logger = new Logger('Metrics');
  /** The nodes this process last found failing: each is logged once when it starts failing, not at every scrape. */
  private failing = new Set<string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly stats: StatsRepository,
    private readonly jobs: JobsService,
    private readonly catalog: CatalogService,
  ) {}

  /** The metrics in Prometheus' text format, for the bearer of METRICS_TOKEN only. */
  async scrape(authorization: string | undefined): Promise<{ contentType: string; body: string }> {
    const access = scrapeAccess(this.config.metricsToken, authorization);
    if (access === 404) throw new NotFoundException('Cannot GET /metrics');
    if (access === 401) throw new UnauthorizedException('A valid metrics token is required.');
    await Promise.all([this.readQueues(), this.readDatabase()]);
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private async readQueues(): Promise<void> {
    // The catalog's queues as it stands now (it is read again when its file changes).
    const queues: AnyQueue[] = platformQueues(this.catalog.ids());
    const counts = await Promise.all(queues.map((q) => this.jobs.queue(q).getJobCounts(...QUEUE_STATES, 'prioritized')));
    queueJobs.reset();
    queues.forEach((queue, i) => {
      const c = counts[i]!;
      // Replies queue with a priority (fair queueing): a prioritized job is a waiting one.
      for (const state of QUEUE_STATES) queueJobs.set({ queue, state }, (c[state] ?? 0) + (state === 'waiting' ? (c.prioritized ?? 0) : 0));
    });
  }

  private async readDatabase(): Promise<void> {
    const [online, tasks, ledger, rewards] = await Promise.all([
      this.stats.nodesOnline(),
      this.stats.nodeTasksLastHour(),
      this.stats.ledgerTotals(),
      this.stats.rewardTotals(),
    ]);
    nodesOnline.reset();
    for (const r of online) nodesOnline.set({ model: r.model, kind: r.kind }, r.nodes);
    this.countNodeTasks(tasks);
    // Totals kept by PostgreSQL, exposed as counters: they only grow, so rate() over them is GLOB's flow.
    ledgerTransactions.reset();
    ledgerFlow.reset();
    let open = 0;
    let openUnits = 0;
    for (const r of ledger) {
      ledgerTransactions.inc({ type: r.type, status: r.status }, Number(r.transactions));
      if (r.status === 'completed') ledgerFlow.inc({ type: r.type }, Number(r.units));
      if (r.status === 'pending') {
        open += Number(r.transactions);
        openUnits += Number(r.units);
      }
    }
    holdsOpen.set(open);
    holdsOpenUnits.set(openUnits);
    rewardUnits.set({ state: 'pending' }, Number(rewards.pending));
    rewardUnits.set({ state: 'paid' }, Number(rewards.paid));
  }

  /** Last hour's tasks summed over nodes; the nodes themselves are counted, and a failing one is named in the log. */
  private countNodeTasks(tasks: Array<{ node: string; model: string; kind: string; status: string; tasks: number }>): void {
    nodeTasks.reset();
    const byNode = new Map<string, { failed: number; completed: number }>();
    for (const r of tasks) {
      nodeTasks.inc({ model: r.model, kind: r.kind, status: r.status }, r.tasks);
      const n = byNode.get(r.node) ?? { failed: 0, completed: 0 };
      if (r.status === 'failed') n.failed += r.tasks;
      else n.completed += r.tasks;
      byNode.set(r.node, n);
    }
    const failing = new Set<string>();
    let withFailures = 0;
    for (const [node, { failed, completed }] of byNode) {
      if (failed === 0) continue;
      withFailures++;
      if (!isFailingNode(failed, completed)) continue;
      failing.add(node);
      if (!this.failing.has(node))
        this.logger.warn({
          msg: `Node ${node} is failing: ${failed} of ${failed + completed} tasks failed in the last hour`,
          node_id: node,
          failed,
          completed,
        });
    }
    this.failing = failing;
    nodesWithFailures.set({ failing: 'true' }, failing.size);
    nodesWithFailures.set({ failing: 'false' }, withFailures - failing.size);
  }
}
