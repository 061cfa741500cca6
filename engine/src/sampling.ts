/**
 * The one sampling type (the spec's `Sampling`, in the spec's casing) and its mapping to llama.cpp. A reply's sampling
 * is read once from the request, carried unchanged through the job and the node job, and turned into llama.cpp's own
 * options only here: node-llama-cpp's for the worker and the agent, llama-server's for a pool's coordinator.
 */
import type { components } from '@glob/contract';

export type Sampling = components['schemas']['Sampling'];

/** node-llama-cpp's generation options for a sampling (its grammar and scoring are the engine's to build). */
export function llamaCppOptions(s: Sampling): { maxTokens: number; temperature: number; topP: number; minP: number; seed?: number } {
  return {
    maxTokens: s.max_tokens,
    temperature: s.temperature,
    topP: s.top_p,
    // Always given: llama-server's own default (0.05) differs from node-llama-cpp's (0).
    minP: s.min_p ?? 0,
    ...(s.seed !== undefined ? { seed: s.seed } : {}),
  };
}

/**
 * llama-server's `/completion` fields for a sampling; llama-server builds the grammar from the schema itself, except a
 * framed one (a family's tool call), whose GBNF text the caller writes (`grammar`, tool-format.ts).
 */
export function llamaServerOptions(s: Sampling, grammar?: string): Record<string, unknown> {
  return {
    n_predict: s.max_tokens,
    temperature: s.temperature,
    top_p: s.top_p,
    min_p: s.min_p ?? 0,
    ...(s.seed !== undefined ? { seed: s.seed } : {}),
    ...(grammar !== undefined ? { grammar } : s.json_schema ? { json_schema: s.json_schema } : {}),
  };
}
