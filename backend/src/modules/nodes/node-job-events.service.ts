/** What a node sends of a job it holds (token events, its end, an embed job's vectors), and the reply's settlement. */
import constants from '@glob/contract/constants.json';
import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  PayloadTooLargeException,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { NODE_CREDENTIAL_INVALID } from '../../auth/node-credential.guard';
import type { NdjsonAnswer } from '../../common/ndjson';
import { specSchemaCheck } from '../../contract/schema-validator';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { JobLeases } from '../../jobs/job-leases';
import type { InferenceJob } from '../../jobs/jobs';
import { withRequestId } from '../../observability/logging';
import { RateLimiter } from '../../common/rate-limit';
import { fromBase64 } from '../../common/vectors';
import { stopKey } from '../../jobs/stop-signals';
import { TokenCounter } from '../catalog/token-counter';
import { TokenStream } from '../inference/streams';
import { EmbeddingsService } from '../inference/embeddings.service';
import { RepliesService, type StopReason } from '../inference/replies.service';
import { TasksRepository } from '../inference/tasks.repository';
import { SpotChecksService } from '../trust/spot-checks.service';
import { StoppedRepliesService } from '../trust/stopped-replies.service';
import type { TokenLogprob } from '@glob/engine/logprobs';
import { type Assignment, type FrameKeys, NodeJobStore, runOf } from './node-job-store';
import { NodeSpeedService } from './node-speed.service';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { ProviderNodesRepository, type NodeIdentity } from './provider-nodes.repository';

/** One events call carries at most this many events and this much text (the spec's; checked once the body is parsed). */
export const NODE_EVENTS_MAX = constants.nodeJobEvents.maxEvents;
export const NODE_EVENTS_MAX_BYTES = constants.nodeJobEvents.maxTextBytes;
/** The most a call's body may be: the text's limit, and room for a done event's logprobs (thousands of tokens with candidates). */
export const NODE_EVENTS_BODY_MAX_BYTES = 16 * 1024 * 1024;
export const NODE_EVENTS_TOO_LARGE = `At most ${NODE_EVENTS_MAX} events and ${NODE_EVENTS_MAX_BYTES / 1024} KiB per call`;

/**
 * A node streaming a reply is marked seen at most this often by one API process: each mark is a write (its presence
 * row), and a reply's events come many times a second. Presence adds up the time between marks, so none is lost.
 */
const SEEN_EVERY_MS = 1000;

/** The rate limiter's counter of a node's token events, and its window (the cap is per second). */
const NODE_EVENTS_RATE = 'node-events';
const NODE_EVENTS_WINDOW_SECONDS = 1;

const eventsLineProblem = specSchemaCheck('NodeJobEvents');

/** One line of a streamed body as the events call's body, or 400 in words. */
function parseEventsLine(line: string): RequestBody<'sendNodeJobEvents'> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new BadRequestException('A line of the body is not JSON: each line is one NodeJobEvents object');
  }
  const problem = eventsLineProblem(value);
  if (problem) throw new BadRequestException(`A line of the body is not a NodeJobEvents object: ${problem}`);
  return value as RequestBody<'sendNodeJobEvents'>;
}

/** What one streamed request keeps between its lines. */
interface StreamState {
  held?: { a: Assignment; data: InferenceJob; at: number };
  /** The node was answered that its reply stopped. */
  toldStop?: boolean;
}

/** A cap of what a node may send was passed: the job has ended as failed (413). */
class OverCapException extends PayloadTooLargeException {}

/** A cap a batch passed, in words (the job is then ended by overCapEnds). */
class CapPassed extends Error {}

/** What a job has carried so far, with the batch just counted, and the node's token events this second. */
interface SentCounts {
  a: Assignment;
  bytes: number;
  events: number;
  perSecond: number;
}

/** A frame's token events counted and relayed (or not), or the job's place when it took none of them. */
type Framed = { stopped: true } | { stopped: false; stop: boolean; taken: number };

type NodeJobEvent = Schemas['NodeJobEvent'];

/**
 * A remote node's reply reaches the requester through the same inference core as an in-cluster worker's
 * (RepliesService, EmbeddingsService), priced by the platform's own count; the node's speed is measured on the
 * platform's clock, and the reply is then checked as trust decides (SpotChecksService).
 */
@Injectable()
export class NodeJobEventsService {
  private readonly logger = new Logger('NodeJobs');
  private readonly lastSeen = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: NodeJobStore,
    private readonly leases: JobLeases,
    private readonly replies: RepliesService,
    private readonly tasks: TasksRepository,
    private readonly nodes: ProviderNodesRepository,
    private readonly counter: TokenCounter,
    private readonly limiter: RateLimiter,
    private readonly spotChecks: SpotChecksService,
    private readonly stoppedReplies: StoppedRepliesService,
    private readonly embeddings: EmbeddingsService,
    private readonly speed: NodeSpeedService,
    private readonly verifyJobs: NodeVerifyJobsService,
  ) {}

  /**
   * Token events go to the requester's stream, within the job's caps (bytes, events, and the node's events per
   * second: past one the job ends as failed, 413); a final `done` settles the reply by the platform's own count of
   * the text it relayed, an `error` ends it at no charge.
   */
  async events(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobEvents'>, stream?: StreamState): Promise<Schemas['NodeJobAck']> {
    const events = body.events;
    if (events.length > NODE_EVENTS_MAX) throw new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE);
    const end = events.findIndex((e) => e.type !== 'token');
    if (end >= 0 && end !== events.length - 1) throw new BadRequestException('events: a done or error event must be the last');
    const final = end >= 0 ? (events[end] as Exclude<NodeJobEvent, { type: 'token' }>) : null;
    // A reply's end is marked whatever the throttle: its settlement may take a while, and the node is live meanwhile.
    await this.seen(node.id, final !== null);
    const texts = events.flatMap((e) => (e.type === 'token' ? [e.text] : []));
    if (texts.reduce((n, t) => n + Buffer.byteLength(t), 0) > NODE_EVENTS_MAX_BYTES) throw new PayloadTooLargeException(NODE_EVENTS_TOO_LARGE);
    if (this.verifyJobs.isVerifyJob(jobId)) return this.verifyJobs.replayEvents(node, jobId, final);
    if (!final) return this.tokensOnly(node, jobId, texts, body.from, stream);
    const stopped = await this.afterStop(node, jobId, final);
    if (stopped) return stopped;
    const { a, data } = await this.store.held(node, jobId).catch(async (err: unknown) => {
      // Ended by a stop between the check above and now (before its stopped reply was kept): the commitment goes to it.
      if (final.type === 'done') await this.stoppedReplies.endedAfterStop(jobId, node.id, final.commitment ?? null);
      throw err;
    });
    if (data.embed && (texts.length > 0 || final.type === 'done')) await this.textForEmbed(a, data);
    // A stop that crossed this end (the frame finds it) leaves the text out; the settlement below then finds it ended.
    const framed = texts.length > 0 || body.from !== undefined ? await this.frame(a, data, texts, body.from) : null;
    // The job's end is logged (and settled) in the id of the request that asked for the reply.
    const fields = { job_id: jobId, node_id: node.id, task_id: data.taskId, model: data.modelId };
    if (final.type === 'done') {
      const reported = { promptTokens: final.usage.prompt_tokens, completionTokens: final.usage.completion_tokens };
      await withRequestId(data.requestId, async () => {
        this.logger.log({ msg: `Node ${node.id} finished job ${jobId} (${final.stop_reason})`, ...fields, stop_reason: final.stop_reason });
        const completed = await this.settle(a, data, final.stop_reason, reported, final.logprobs, final.commitment ?? null);
        // Ended by someone else meanwhile (a stop that crossed this end): the commitment goes to the stopped reply.
        if (!completed) await this.stoppedReplies.endedAfterStop(jobId, node.id, final.commitment ?? null);
      });
    } else {
      await withRequestId(data.requestId, async () => {
        this.logger.warn({ msg: `Node ${node.id} failed job ${jobId}: ${final.message}`, ...fields });
        await this.replies.fail(data, node.id, 'INTERNAL_ERROR', 0, runOf(a));
        await this.store.release(a, () => this.leases.fail(a, final.message));
      });
    }
    return { stop: false, ...(body.from !== undefined && framed && !framed.stopped ? { taken: framed.taken } : {}) };
  }

  /**
   * A batch of token events alone, a streamed reply's common case: the job as held (kept for a second within a
   * stream), then one script in Redis: whether the platform stopped it, the job's counts and the node's rate, whether
   * the requester stopped it, and the text onto the reply's stream if within the caps.
   */
  private async tokensOnly(
    node: NodeIdentity,
    jobId: string,
    texts: string[],
    from: number | undefined,
    stream?: StreamState,
  ): Promise<Schemas['NodeJobAck']> {
    let held: { a: Assignment; data: InferenceJob };
    try {
      held = await this.held(node, jobId, stream);
    } catch (err) {
      // A reply the platform stopped may be released already: its node is still told to stop.
      const stopped = await this.afterStop(node, jobId, null);
      if (stopped) return stopped;
      throw err;
    }
    const { a, data } = held;
    if (data.embed) await this.textForEmbed(a, data);
    const framed = await this.frame(a, data, texts, from);
    if (framed.stopped) return { stop: true };
    return { stop: framed.stop, ...(from !== undefined ? { taken: framed.taken } : {}) };
  }

  /**
   * Token events in one script (NodeJobStore.frame), in the reply's order: the batch's part the job has not taken yet
   * counted and, within the caps, relayed (past one, the job ends: 413); a gap in the job's events is refused (409).
   */
  private async frame(a: Assignment, data: InferenceJob, texts: string[], from: number | undefined): Promise<Framed> {
    const prefix = this.config.redis.prefix;
    const keys: FrameKeys = {
      stopped: this.stoppedReplies.stoppedKey(a.jobId),
      rate: this.limiter.key(NODE_EVENTS_RATE, a.nodeId),
      stop: stopKey(prefix, data.streamId),
      stream: TokenStream.key(prefix, data.streamId),
    };
    const frame = await this.replies.inOrder(data, () =>
      this.store.frame(a, keys, data.userId, texts, from, this.config.inference.nodeEventsPerSecond, NODE_EVENTS_WINDOW_SECONDS * 1000),
    );
    if (frame.kind === 'stopped') return { stopped: true };
    if (frame.kind === 'gap') {
      throw new ConflictException(`Job ${a.jobId}: this batch starts at token event ${from}, but the platform has taken ${frame.taken}`);
    }
    if (frame.kind === 'taken-before') {
      // Taken before, yet sent: it counts towards the node's events a second like any other.
      await this.overCapEnds(a, data, () => this.judgeCaps({ a, bytes: 0, events: 0, perSecond: frame.perSecond }));
      return { stopped: false, stop: frame.stop, taken: frame.taken };
    }
    await this.overCapEnds(a, data, () => this.judgeCaps({ a, ...frame }));
    if (frame.relayed) await this.firstText(a);
    return { stopped: false, stop: frame.stop, taken: frame.events };
  }

  /** An embed job is answered with its vectors: text for it ends it as failed for the node. */
  private async textForEmbed(a: Assignment, data: InferenceJob): Promise<never> {
    await this.endEmbed(a, data, 'it sent text for an embed job');
    throw new ConflictException(`Job ${a.jobId} has ended: an embed job is answered with its vectors`);
  }

  /** Text of the job went on: the first clears its first-token deadline. */
  private async firstText(a: Assignment): Promise<void> {
    if (a.firstTokenAt) return;
    // Set on the assignment itself, so that a stream's copy of it knows too.
    a.firstTokenAt = Date.now();
    await this.store.save(a);
    if (await this.store.clearDeadline(a.jobId)) await this.nodes.firstTokenInTime(a.nodeId);
  }

  /**
   * A reply's events over one request (streamNodeJobEvents): the job checked before the answer opens, then each line
   * taken as one events call would be, the node's credential checked again at most every second. A line without
   * `from` is answered by one line; lines with it (not waited for) only at the first stop and the reply's end. An
   * Error line, or the line that ends the reply, ends the answer.
   */
  async stream(node: NodeIdentity, jobId: string, lines: AsyncIterable<string>, answer: NdjsonAnswer): Promise<void> {
    const state: StreamState = {};
    // Before the answer opens: 403 for a job this node does not hold, 409 for one that has ended (a reply the platform
    // stopped, which its node must still end with its commitment, and a verify job's replay are let through).
    if (!this.verifyJobs.isVerifyJob(jobId) && !(await this.stoppedReplies.waitsFor(jobId, node.id))) await this.held(node, jobId, state);
    answer.open();
    let checkedAt = Date.now();
    try {
      for await (const line of lines) {
        const body = parseEventsLine(line);
        if (Date.now() - checkedAt >= SEEN_EVERY_MS) {
          if (!(await this.nodes.isActive(node.id))) throw new UnauthorizedException(NODE_CREDENTIAL_INVALID);
          checkedAt = Date.now();
        }
        const ack = await this.events(node, jobId, body, state);
        const last = body.events.some((e) => e.type !== 'token');
        // Lines with `from` are not waited for: only the first stop and the last line are answered (errors always).
        if (body.from === undefined || last || (ack.stop && !state.toldStop)) answer.line(ack);
        state.toldStop ||= ack.stop;
        if (last) break;
      }
    } catch (err) {
      answer.fail(err);
    }
    answer.end();
  }

  /**
   * The job this node holds (lock renewed), or 403/409. Within one streamed request the answer is kept for a second:
   * the lookup reads PostgreSQL and Redis and renews a lock that lasts far longer, and a reply ended meanwhile by
   * anyone else (a stop, a deadline) is still found at the next lookup, or at the reply's own end, which always looks.
   */
  private async held(node: NodeIdentity, jobId: string, stream?: StreamState): Promise<{ a: Assignment; data: InferenceJob }> {
    const now = Date.now();
    if (stream?.held && now - stream.held.at < SEEN_EVERY_MS) return stream.held;
    const held = await this.store.held(node, jobId);
    if (stream) stream.held = { ...held, at: now };
    return held;
  }

  private async seen(nodeId: string, always = false): Promise<void> {
    const now = Date.now();
    if (!always && now - (this.lastSeen.get(nodeId) ?? 0) < SEEN_EVERY_MS) return;
    this.lastSeen.set(nodeId, now);
    // Nodes come and go: the map keeps only those seen in the last interval or so.
    if (this.lastSeen.size > 10_000) for (const [id, at] of this.lastSeen) if (now - at >= SEEN_EVERY_MS) this.lastSeen.delete(id);
    await this.nodes.touch(nodeId);
  }

  /** Past a cap, a CapPassed naming it. */
  private judgeCaps({ a, bytes, events, perSecond }: SentCounts): void {
    const why =
      bytes > a.maxBytes
        ? `its text passed ${a.maxBytes} bytes, the most ${a.maxTokens} tokens can decode to`
        : events > a.maxEvents
          ? `it sent more than ${a.maxEvents} token events for at most ${a.maxTokens} tokens`
          : perSecond > this.config.inference.nodeEventsPerSecond
            ? `the node sent more than ${this.config.inference.nodeEventsPerSecond} token events in a second`
            : null;
    if (why) throw new CapPassed(why);
  }

  /** Runs `check`; a cap it finds passed ends the job as failed for the node, nobody pays, and the node gets 413. */
  private async overCapEnds(a: Assignment, data: InferenceJob, check: () => void): Promise<void> {
    try {
      check();
    } catch (err) {
      if (!(err instanceof CapPassed)) throw err;
      this.logger.warn(`Node ${a.nodeId} went past a cap on job ${a.jobId}: ${err.message}`);
      await this.replies.fail(data, a.nodeId, 'WORKER_FAILED', 0, runOf(a));
      await this.store.release(a, () => this.leases.fail(a, `past a cap: ${err.message}`));
      throw new OverCapException(`Job ${a.jobId} has ended: ${err.message}.`);
    }
  }

  /**
   * The reply is complete: priced by the platform's count of the prompt and of the text it relayed (at most the
   * completion cap the node was given); the node's own report is only recorded beside it. False when the reply had
   * already ended.
   */
  async settle(
    a: Assignment,
    data: InferenceJob,
    stopReason: StopReason,
    reported?: { promptTokens: number; completionTokens: number },
    logprobs?: TokenLogprob[],
    commitment: string | null = null,
  ): Promise<boolean> {
    const text = await this.replies.streamedText(data);
    const usage = { promptTokens: a.promptTokens, completionTokens: Math.min(a.maxTokens, await this.counter.countText(a.modelId, text)) };
    const now = Date.now();
    const completed = await this.replies.complete(data, a.nodeId, usage, stopReason, now - a.claimedAt, runOf(a), logprobs);
    const served = {
      taskId: data.taskId,
      nodeId: a.nodeId,
      job: data,
      seed: a.seed,
      text,
      completionTokens: usage.completionTokens,
      pooled: a.kind === 'pool',
      ...(logprobs ? { logprobs } : {}),
    };
    if (completed && !reported && usage.completionTokens > 0) {
      // Stopped by the platform after some text: the node is told at its next call (kept before the job is released,
      // so that call never finds the job simply gone) and commits then to what it had generated.
      await this.stoppedReplies.keep(a.jobId, served, a.maxTokens);
    }
    await this.store.release(a, () => this.leases.complete(a));
    if (completed) await this.speed.recordSpeed(a, usage.completionTokens, now);
    if (completed && reported) {
      await this.tasks.recordReported(data.taskId, reported);
      // A reply the node ended at the cap its hold pays for says `budget` or `length`: the same end to the verifier.
      const end = stopReason === 'budget' ? 'length' : stopReason;
      await this.spotChecks.afterReply({ ...served, ended: { stopReason: end, commitment, maxTokens: a.maxTokens } });
    }
    return completed;
  }

  /**
   * A call of the node whose reply the platform stopped: it is told to stop (its tokens are no longer relayed) until
   * its done (or error) event, whose commitment the reply is then checked by as any other. Null for any other job.
   */
  private async afterStop(
    node: NodeIdentity,
    jobId: string,
    final: Exclude<NodeJobEvent, { type: 'token' }> | null,
  ): Promise<Schemas['NodeJobAck'] | null> {
    if (!(await this.stoppedReplies.waitsFor(jobId, node.id))) return null;
    if (final) await this.stoppedReplies.checkStopped(jobId, final.type === 'done' ? (final.commitment ?? null) : null);
    return { stop: true };
  }

  /**
   * A stop (the requester's, a client that left, a revoked API key, or the reaper's) ends a remote node's reply here
   * at once, with what was relayed so far, whatever the node does next: its following calls get 409.
   */
  async endNow(jobId: string): Promise<void> {
    const a = await this.store.assignment(jobId);
    if (!a) return;
    const data = await this.leases.renew(a);
    if (!data) return;
    if (data.embed) return this.endEmbed(a, data, 'stopped');
    await this.settle(a, data, 'abort');
  }

  /**
   * An embed job's vectors: checked and settled by the inference core; vectors that fail the check end the job as
   * failed for this node, at no charge (422).
   */
  async embeddingsOf(node: NodeIdentity, jobId: string, body: RequestBody<'sendNodeJobEmbeddings'>): Promise<void> {
    await this.nodes.touch(node.id);
    const { a, data } = await this.store.held(node, jobId);
    if (!data.embed) throw new ConflictException(`Job ${jobId} is not an embed job`);
    if (await this.store.clearDeadline(jobId)) await this.nodes.firstTokenInTime(node.id);
    const vectors = body.embeddings.map(fromBase64);
    const problem = vectors.some((v) => !v)
      ? 'a vector is not whole float32 values'
      : await withRequestId(data.requestId, () =>
          this.embeddings.finish(data, node.id, vectors as Float32Array[], Date.now() - a.claimedAt, runOf(a)),
        );
    if (problem && vectors.some((v) => !v)) await this.embeddings.fail(data, node.id, runOf(a));
    await this.store.release(a, () => (problem ? this.leases.fail(a, problem) : this.leases.complete(a)));
    if (!problem) await this.spotChecks.afterEmbeddings(data.taskId, node.id, data, vectors as Float32Array[]);
    if (problem) throw new UnprocessableEntityException(`Job ${jobId} has ended: ${problem}`);
  }

  /** An embed job answered with text, or stopped: it ends as failed for its node, and nobody pays. */
  private async endEmbed(a: Assignment, data: InferenceJob, why: string): Promise<void> {
    this.logger.warn(`Node ${a.nodeId} ended embed job ${a.jobId} without vectors: ${why}`);
    await this.embeddings.fail(data, a.nodeId, runOf(a));
    await this.store.release(a, () => this.leases.fail(a, why));
  }
}
