import type { JobTurn } from './jobs';

/** What a generation starts from: chat turns for the model's chat template, or a raw prompt continued as it is. */
export type GenerationInput = { messages: JobTurn[]; prompt?: undefined } | { prompt: string; messages?: undefined };

/** The input a job (or a replay of one) carries: its raw prompt when it has one, else its chat turns. */
export function generationInput(job: { messages?: JobTurn[]; prompt?: string }): GenerationInput {
  return job.prompt !== undefined ? { prompt: job.prompt } : { messages: job.messages ?? [] };
}

/** A turn's text in bytes, its tools and calls as JSON. */
export function turnBytes(m: JobTurn): number {
  return (
    Buffer.byteLength(m.content) +
    (m.tools ? Buffer.byteLength(JSON.stringify(m.tools)) : 0) +
    (m.tool_calls ? Buffer.byteLength(JSON.stringify(m.tool_calls)) : 0)
  );
}

/** The input's text in bytes (what a reply's prompt weighs in its task's traffic). */
export function inputBytes(input: GenerationInput): number {
  return input.prompt !== undefined ? Buffer.byteLength(input.prompt) : input.messages.reduce((n, m) => n + turnBytes(m), 0);
}
