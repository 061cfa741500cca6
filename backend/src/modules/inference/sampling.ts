/**
 * A reply's sampling, read once at the edge: the request's values, else its conversation's saved settings, else the
 * spec's defaults. The result (the spec's `Sampling`) travels unchanged through the job to every generator.
 */
import constants from '@glob/contract/constants.json';
import type { Sampling } from '@glob/engine/sampling';

export type { Sampling };
/** Sampling values as a request or a conversation gives them: any of the fields, null or absent meaning "not given". */
export type GivenSampling = { [K in keyof Sampling]?: Sampling[K] | null };

const FIELDS: ReadonlySet<string> = new Set(constants.samplingFields);

/** The sampling fields of `given` that are set (everything else it holds, such as a system prompt, is left out). */
function setFields(given: object | undefined): Partial<Sampling> {
  return Object.fromEntries(Object.entries(given ?? {}).filter(([k, v]) => FIELDS.has(k) && v !== undefined && v !== null));
}

/** The sampling a reply is generated with: each field from the request, else the conversation, else the default. */
export function resolveSampling(request: GivenSampling | undefined, conversation?: object): Sampling {
  return { ...constants.samplingDefaults, ...setFields(conversation), ...setFields(request) } as Sampling;
}

/**
 * The fields an OpenAI-compatible request body carries under the sampling's own names and meanings (temperature,
 * top_p, seed…). The limit, the stop sequences, the grammar and the scoring are named or shaped differently there.
 */
const SHAPED_BY_THE_EDGE = new Set(['max_tokens', 'stop', 'json_schema', 'logprobs']);
export function sameNamedSampling(body: object): Partial<Sampling> {
  return Object.fromEntries(Object.entries(setFields(body)).filter(([k]) => !SHAPED_BY_THE_EDGE.has(k)));
}
