/**
 * The engine's requests for a reply job, a verify job's recomputation and a model challenge's answer: each carries the
 * job's sampling unchanged (the engine maps it to llama.cpp).
 */
import type { Schemas } from './contract';
import type { GenerationStep } from '@glob/engine/generation';
import type { GenerateRequest, PromptRequest } from '@glob/engine/llama-engine';

type NodeJob = Schemas['NodeJob'];
type ModelChallenge = Schemas['ModelChallenge'];

/** A chat or completion job's generation, cut short by `signal`, with the job's sampling as the platform gave it. */
export function replyRequest(job: NodeJob, signal: AbortSignal): GenerationStep {
  return {
    // A raw prompt is generated as it is, without the chat template.
    ...(job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] }),
    // Its max_tokens is what the requester's hold pays for; a JSON schema's replies are checked against it; logprobs
    // are checked against the text relayed.
    sampling: job.params,
    // The platform verifies replies against what the node commits to: its tokens and the model's numbers at each.
    commit: true,
    signal,
  };
}

/** A verify job's pass: the checked reply's prompt (or messages), fitted as its generation's was. */
export function recomputeRequest(job: NodeJob): PromptRequest {
  const input = job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] };
  return { ...input, sampling: job.params };
}

/** A model challenge's answer. */
export function challengeRequest(c: ModelChallenge): GenerateRequest {
  // The platform verifies the answer as it verifies replies: by recomputing what the node commits to.
  return { messages: c.messages, sampling: c.params, commit: true };
}
