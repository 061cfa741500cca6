/** What a generator's answer must be to be paid, whoever generated it: a stranger's node can send anything. */
import { logprobsProblem, type TokenLogprob } from '@glob/engine/logprobs';
import type { InferenceJob } from '../../jobs/jobs';

/**
 * What is wrong with a generator's vectors for this job, or null: one per text, each of the model's embedding length,
 * every value finite. A stranger's node can send anything, so nothing is paid for vectors that fail this.
 */
export function vectorProblem(vectors: ArrayLike<number>[], texts: number, dimensions: number): string | null {
  if (vectors.length !== texts) return `${vectors.length} vectors for ${texts} texts`;
  for (const [i, v] of vectors.entries()) {
    if (v.length !== dimensions) return `vector ${i} has ${v.length} values, the model's embeddings have ${dimensions}`;
    for (let j = 0; j < v.length; j++) if (!Number.isFinite(v[j]!)) return `vector ${i} has a value that is not a finite number`;
  }
  return null;
}

/**
 * What is wrong with the logprobs a reply ends with when it was asked for them (see logprobsProblem: they must be
 * its text's tokens, well formed), or null. A reply stopped from outside may end without them.
 */
export function replyLogprobsProblem(job: InferenceJob, text: string, stopReason: string, logprobs: TokenLogprob[] | undefined): string | null {
  const top = job.params.logprobs;
  if (top === undefined) return null;
  if (!logprobs) return stopReason === 'abort' ? null : 'no logprobs';
  if (logprobs.length > job.params.max_tokens) return `${logprobs.length} tokens for at most ${job.params.max_tokens}`;
  return logprobsProblem(text, logprobs, top);
}
