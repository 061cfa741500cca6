/**
 * The work loop: claims jobs while a slot is free and the node is not paused, applies a new allocation between jobs,
 * and keeps the running jobs (their events to the API, their interruption, their return on the way out).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Schemas } from './contract';
import { Backoff } from './api-client';
import type { paths } from '@glob/contract';
import { EventChannel } from './event-channel';
import { EventSender, type NodeJobEvent, type SendResult } from './job-events';
import { jobFields, type Log } from './logging';
import type { Serving } from './serving';
import { AgentError, EXIT_REVOKED, type Session } from './session';

type NodeJob = Schemas['NodeJob'];
/** A reply's events over one request (the spec's streamNodeJobEvents). */
const EVENT_STREAM = '/api/nodes/jobs/{jobId}/events/stream' satisfies keyof paths;

export interface RunningJob {
  id: string;
  abort: AbortController;
  sender: EventSender;
  /** Why generation was cut short, if it was. */
  reason: 'stop' | 'lost' | 'shutdown' | 'revoked' | null;
  done: Promise<void>;
}

export interface WorkLoopDeps {
  session: Session;
  serving: Serving;
  /** Runs a claimed job by its kind (jobs.ts). */
  run: (job: NodeJob, running: RunningJob) => Promise<void>;
  /** No jobs are claimed while this holds (the heartbeat's pauses). */
  paused: () => boolean;
  /** A heartbeat now (after a new allocation is applied). */
  report: () => Promise<void>;
  /** A job's failure that ends the agent (revoked, unexpected). */
  fail: (err: unknown) => void;
  claimWaitSeconds?: number;
}

export class WorkLoop {
  private readonly log: Log;
  /** The jobs running now, at most jobSlots(): several replies are generated at once, batched in one context per model. */
  private readonly jobs = new Map<string, RunningJob>();
  /** The jobs held when the agent was told to stop: they are given back on the way out. */
  private readonly interrupted: RunningJob[] = [];
  private wakeUp: (() => void) | null = null;
  /** Whether replies stream their events over one request; off for the session once the API (or its proxy) cannot. */
  private streamEvents = true;

  constructor(private readonly deps: WorkLoopDeps) {
    this.log = deps.session.log;
  }

  /** The jobs running now. */
  get running(): number {
    return this.jobs.size;
  }

  /** Something the loop waits on (a pause, an allocation, the pool, a stop) changed: it looks again. */
  wake(): void {
    this.wakeUp?.();
  }

  async run(): Promise<void> {
    const { session, serving } = this.deps;
    const backoff = new Backoff();
    const signal = session.signal;
    while (!signal.aborted) {
      // Every sequence busy, or a new allocation waiting for the running jobs to end: wait for one to end.
      if (this.jobs.size > 0 && (this.jobs.size >= serving.jobSlots() || serving.pendingAllocation)) {
        await Promise.race([...this.jobs.values()].map((j) => j.done));
        continue;
      }
      if (serving.pendingAllocation) {
        const next = serving.pendingAllocation;
        // More memory or disk may let more of the catalog in: pull it before loading.
        if (next.disk_gb !== serving.allocation.disk_gb || next.memory_percent !== serving.allocation.memory_percent) await serving.syncModels(next);
        await serving.apply(next);
        await this.deps.report();
        continue;
      }
      if (this.deps.paused() || serving.servedModels().length === 0) {
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        this.wakeUp = null;
        continue;
      }
      const wait = this.deps.claimWaitSeconds ?? 25;
      const res = await session.conn.call((s) => session.api.POST('/api/nodes/jobs/claim', { body: { wait_seconds: wait }, signal: s }), {
        signal,
        timeoutMs: (wait + 15) * 1000,
      });
      session.checkRevoked(res.response);
      if (res.response.status === 204) {
        backoff.reset();
        continue;
      }
      if (!res.data) {
        const delay = backoff.next();
        this.log(
          `Claim refused (${res.response.status}): ${(res.error as { message?: string } | undefined)?.message ?? ''}; retrying in ${delay / 1000} s`,
        );
        await sleep(delay, undefined, { signal });
        continue;
      }
      backoff.reset();
      // Not awaited: the next claim goes out at once while a sequence is free, so a new reply joins the running batch.
      this.runJob(res.data).catch((err: unknown) => this.deps.fail(err));
    }
  }

  /** Cuts the running jobs short (Ctrl-C, revocation, a failure): nothing more is sent for them. */
  interrupt(reason: 'shutdown' | 'revoked'): void {
    for (const job of this.jobs.values()) {
      if (this.interrupted.includes(job)) continue;
      job.reason ??= reason;
      void job.sender.close();
      job.abort.abort();
      this.interrupted.push(job);
    }
  }

  /** On the way out: the jobs still running are interrupted, and those cut short by the shutdown given back. */
  async finish(): Promise<void> {
    this.interrupt('shutdown');
    // Nothing more is sent for them; the calls in flight, if any, settle first.
    await Promise.all(
      this.interrupted.map(async (job) => {
        await job.sender.close();
        await job.done.catch(() => undefined);
        if (job.reason === 'shutdown') await this.giveBack(job.id);
      }),
    );
  }

  async giveBack(jobId: string): Promise<void> {
    const { session } = this.deps;
    const res = await session.conn.call((signal) => session.api.POST('/api/nodes/jobs/{jobId}/return', { params: { path: { jobId } }, signal }), {
      timeoutMs: 10_000,
      retry: false,
    });
    if (!res) this.log(`Could not return job ${jobId} (API unreachable): the network takes it back when its lock expires`);
    else if (res.response.status === 204) this.log(`Returned job ${jobId} to the network`);
    else this.log(`Job ${jobId} was not returned (${res.response.status}): it had already ended or left this node`);
  }

  private async postEvents(jobId: string, events: NodeJobEvent[], from: number): Promise<SendResult> {
    const { session } = this.deps;
    const res = await session.conn.call(
      (signal) => session.api.POST('/api/nodes/jobs/{jobId}/events', { params: { path: { jobId } }, body: { events, from }, signal }),
      { signal: session.signal, timeoutMs: 30_000 },
    );
    if (res.data) return { kind: 'ok', stop: res.data.stop };
    if (res.response.status === 401) return { kind: 'revoked' };
    return {
      kind: 'lost',
      status: res.response.status,
      message: (res.error as { message?: string } | undefined)?.message ?? res.response.statusText,
    };
  }

  /** How a job's batches reach the API: over one streamed request where it can, else a request each. */
  private eventsChannel(jobId: string): EventChannel | null {
    const { session } = this.deps;
    if (!this.streamEvents) return null;
    return new EventChannel({
      url: `${session.url}${EVENT_STREAM.replace('{jobId}', encodeURIComponent(jobId))}`,
      authorization: () => session.credential?.credential,
      fetch: session.fetch,
      fallback: (events, from) => this.postEvents(jobId, events, from),
      onUnsupported: (why) => {
        if (!this.streamEvents) return;
        this.streamEvents = false;
        this.log(
          `The API did not take a streamed request (${why}): events go one request per batch. ` +
            'Behind a proxy, let it pass request bodies on as they come (nginx: proxy_request_buffering off).',
        );
      },
      signal: session.signal,
    });
  }

  private runJob(job: NodeJob): Promise<void> {
    const channel = this.eventsChannel(job.job_id);
    let finished!: () => void;
    const running: RunningJob = {
      id: job.job_id,
      abort: new AbortController(),
      reason: null,
      done: new Promise<void>((r) => (finished = r)),
      sender: new EventSender((events, from) => (channel ? channel.post(events, from) : this.postEvents(job.job_id, events, from)), {
        onStop: () => {
          running.reason ??= 'stop';
          running.abort.abort();
        },
        onLost: (status, message) => {
          running.reason ??= 'lost';
          running.abort.abort();
          this.log(`Job ${job.job_id} is no longer this node's (${status}: ${message}); carrying on`, jobFields(job));
        },
        onRevoked: () => {
          running.reason ??= 'revoked';
          running.abort.abort();
        },
      }),
    };
    this.jobs.set(job.job_id, running);
    return this.deps.run(job, running).finally(() => {
      channel?.close();
      this.jobs.delete(job.job_id);
      finished();
      if (running.reason === 'revoked' && !this.deps.session.signal.aborted) {
        throw new AgentError('This node was revoked by its owner; pair it again with a new join token.', EXIT_REVOKED);
      }
    });
  }
}
