/**
 * One claimed job run by its kind: a reply generated and streamed as events, an embed job's vectors, or a verify
 * job's recomputation; each ends with its result (or its error event) sent to the API.
 */
import type { Schemas } from './contract';
import { generateReply } from '@glob/engine/generation';
import { FRAME_MS } from '@glob/engine/token-batcher';
import { encodeCommitment, encodeSteps } from '@glob/engine/commitment';
import { VERIFY_TOP } from '@glob/engine/verification';
import { recomputeRequest, replyRequest } from './engine-requests';
import type { NodeJobEvent } from './job-events';
import { jobFields, type Log, plural } from './logging';
import type { Serving } from './serving';
import type { Session } from './session';
import type { RunningJob } from './work-loop';

type NodeJob = Schemas['NodeJob'];
type StopReason = Extract<NodeJobEvent, { type: 'done' }>['stop_reason'];

export interface JobRunnerDeps {
  session: Session;
  serving: Serving;
  /** Hands a job this node cannot run back to the network. */
  giveBack: (jobId: string) => Promise<void>;
}

export class JobRunner {
  private readonly log: Log;

  constructor(private readonly deps: JobRunnerDeps) {
    this.log = deps.session.log;
  }

  run(job: NodeJob, running: RunningJob): Promise<void> {
    if (job.kind === 'embed') return this.embedJob(job, running);
    if (job.kind === 'verify') return this.verifyJob(job, running);
    return this.replyJob(job, running);
  }

  /**
   * An embed job: the vectors of its texts from the local engine, sent in one call as base64 little-endian float32
   * (the platform checks them before anyone pays); a failure here is the job's error event.
   */
  private async embedJob(job: NodeJob, running: RunningJob): Promise<void> {
    const { session, serving } = this.deps;
    const engine = serving.engine;
    this.log(`Claimed embed job ${job.job_id} (${job.model_id}, ${plural(job.input?.length ?? 0, 'text')})`, {
      ...jobFields(job),
      model: job.model_id,
    });
    if (!engine?.embed || !serving.loaded.includes(job.model_id)) {
      this.log(`Job ${job.job_id}: ${job.model_id} is not loaded here for embeddings`, jobFields(job));
      await running.sender.close();
      await this.deps.giveBack(job.job_id);
      return;
    }
    const started = performance.now();
    let embeddings: string[];
    try {
      const vectors = await engine.embed(job.model_id, job.input ?? []);
      embeddings = vectors.map((v) => Buffer.from(new Float32Array(v).buffer).toString('base64'));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Job ${job.job_id} failed: ${message}`, jobFields(job));
      running.sender.push({ type: 'error', message: message.slice(0, 500) });
      await running.sender.drain();
      return;
    }
    await running.sender.close();
    const res = await session.conn.call(
      (signal) => session.api.POST('/api/nodes/jobs/{jobId}/embeddings', { params: { path: { jobId: job.job_id } }, body: { embeddings }, signal }),
      { signal: session.signal, timeoutMs: 60_000 },
    );
    session.checkRevoked(res.response);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (res.response.status === 204) this.log(`Job ${job.job_id}: ${plural(embeddings.length, 'embedding')} in ${secs} s`, jobFields(job));
    else this.log(`Job ${job.job_id}: the embeddings were refused (${res.response.status})`, jobFields(job));
  }

  /**
   * A verify job (a check of another owner's node's work): the job's tokens evaluated after its prompt in one pass, and
   * the model's numbers at each sent in one call; a failure here is the job's error event.
   */
  private async verifyJob(job: NodeJob, running: RunningJob): Promise<void> {
    const { session, serving } = this.deps;
    const engine = serving.engine;
    const tokens = job.tokens ?? [];
    this.log(`Claimed check ${job.job_id} (${job.model_id}, ${plural(tokens.length, 'token')})`, { ...jobFields(job), model: job.model_id });
    const started = performance.now();
    let steps: string;
    try {
      if (!engine?.recompute || !serving.loaded.includes(job.model_id)) throw new Error(`${job.model_id} is not loaded here`);
      const r = await engine.recompute(job.model_id, recomputeRequest(job), tokens, job.top ?? VERIFY_TOP);
      steps = encodeSteps(r.steps, job.top ?? VERIFY_TOP);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Check ${job.job_id} failed: ${message}`, jobFields(job));
      running.sender.push({ type: 'error', message: message.slice(0, 500) });
      await running.sender.drain();
      return;
    }
    await running.sender.close();
    const res = await session.conn.call(
      (signal) => session.api.POST('/api/nodes/jobs/{jobId}/recomputation', { params: { path: { jobId: job.job_id } }, body: { steps }, signal }),
      { signal: session.signal, timeoutMs: 60_000 },
    );
    session.checkRevoked(res.response);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (res.response.status === 204) this.log(`Check ${job.job_id}: ${plural(tokens.length, 'token')} recomputed in ${secs} s`, jobFields(job));
    else this.log(`Check ${job.job_id}: the recomputation was refused (${res.response.status})`, jobFields(job));
  }

  /** A chat or completion job: the reply generated by the engine or the pool, its text streamed as events, then done. */
  private async replyJob(job: NodeJob, running: RunningJob): Promise<void> {
    const { sender } = running;
    const generator = this.deps.serving.generatorFor(job.model_id);
    this.log(`Claimed job ${job.job_id} (${job.model_id})`, { ...jobFields(job), model: job.model_id });
    const fail = async (message: string) => {
      sender.push({ type: 'error', message: message.slice(0, 500) });
      await sender.drain();
    };
    if (!generator) {
      this.log(`Job ${job.job_id}: ${job.model_id} is not loaded here`, jobFields(job));
      await sender.close();
      await this.deps.giveBack(job.job_id);
      return;
    }
    const started = performance.now();
    try {
      const result = await generateReply(
        (request) => generator.generate(request),
        replyRequest(job, running.abort.signal),
        // While one frame is on its way, what comes meanwhile waits in the sender and goes as the next.
        (text) => sender.pushText(text),
        // A frame (the first piece at once) is one line of the job's events stream: frames, not tokens, set the API's cost.
        FRAME_MS,
      );
      if (running.reason && running.reason !== 'stop') return;
      const stopReason: StopReason = running.reason === 'stop' ? 'abort' : result.stopReason;
      sender.push({
        type: 'done',
        usage: { prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens },
        stop_reason: stopReason,
        ...(result.logprobs ? { logprobs: result.logprobs } : {}),
        ...(result.commitment ? { commitment: encodeCommitment(result.commitment) } : {}),
      });
      const state = await sender.drain();
      if (state !== 'open') return;
      const secs = (performance.now() - started) / 1000;
      this.log(
        `Job ${job.job_id}: ${plural(result.completionTokens, 'token')} in ${secs.toFixed(1)} s${stopReason === 'stop' ? '' : ` (${stopReason})`}`,
        { ...jobFields(job), tokens: result.completionTokens, stop_reason: stopReason },
      );
    } catch (err) {
      if (running.reason && running.reason !== 'stop') return;
      const message = err instanceof Error ? err.message : String(err);
      this.log(`Job ${job.job_id} failed: ${message}`, jobFields(job));
      await fail(message);
    }
  }
}
