/**
 * The network's params as the engine takes them (`top_p` as `topP`, `max_tokens` as `maxTokens`…): the requests for a
 * reply job, a verify job's recomputation and a model challenge's answer, mapped here and nowhere else.
 */
import type { Schemas } from './contract';
import type { GenerationStep } from '@glob/engine/generation';
import type { GenerateRequest } from '@glob/engine/llama-engine';

type NodeJob = Schemas['NodeJob'];
type ModelChallenge = Schemas['ModelChallenge'];

/** A chat or completion job's generation, cut short by `signal`. */
export function replyRequest(job: NodeJob, signal: AbortSignal): GenerationStep {
  return {
    // A raw prompt is generated as it is, without the chat template.
    ...(job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] }),
    // The platform already cut max_tokens to what the requester's hold pays for: never generate more.
    maxTokens: job.params.max_tokens,
    temperature: job.params.temperature,
    topP: job.params.top_p,
    seed: job.params.seed,
    stop: job.params.stop,
    // The platform checks the text against this schema: generated under its grammar, it matches.
    ...(job.params.json_schema ? { jsonSchema: job.params.json_schema } : {}),
    // The platform checks them against the text it relayed: they are the text's tokens as the model scores them.
    ...(job.params.logprobs !== undefined ? { logprobs: job.params.logprobs } : {}),
    // The platform verifies replies against what the node commits to: its tokens and the model's numbers at each.
    commit: true,
    signal,
  };
}

/** A verify job's pass: the checked reply's prompt (or messages) and max_tokens. */
export function recomputeRequest(job: NodeJob): Pick<GenerateRequest, 'messages' | 'prompt' | 'maxTokens'> {
  const input = job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] };
  return { ...input, maxTokens: job.params.max_tokens };
}

/** A model challenge's answer. */
export function challengeRequest(c: ModelChallenge): GenerateRequest {
  const { params } = c;
  return {
    messages: c.messages,
    maxTokens: params.max_tokens,
    temperature: params.temperature,
    topP: params.top_p,
    seed: params.seed,
    // The platform verifies the answer as it verifies replies: by recomputing what the node commits to.
    commit: true,
  };
}
