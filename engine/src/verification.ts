/**
 * Verifying a reply by recomputation: the verifier evaluates prompt + the reply's tokens in one teacher-forced pass and
 * judges every position against the distribution it computed itself.
 *
 * 1. The node's commitment (commitment.ts) must be the model's: each step's token and log probability, and its
 *    candidates' log probabilities by rank, within LOGPROB_TOLERANCE of the recomputed ones.
 * 2. Each token must be one the job's sampling could have chosen. Every generator of the network samples as llama.cpp
 *    does: repetition penalties, then top-k (40), then top-p at temperature 1, then temperature; temperature 0 is
 *    greedy. The verifier does not know which tokens a penalty pushed down, so it leaves out of the count every token
 *    seen in the last REPEAT_WINDOW tokens: a token passes when fewer than SAMPLER_TOP_K other tokens are clearly
 *    likelier than it, those tokens hold less than top_p of the top-k's mass (none at temperature 0), and it is at
 *    least min_p of the likeliest token's probability. The bounds are lenient, so an honest generator never fails them; text the model would not write fails at its first tokens.
 *
 * The end of generation is a position like any other, so an empty reply is a claim that the model ends at once.
 */
import { isFramedJson } from './tool-format';
import { LOGPROB_TOLERANCE } from './logprobs';
import { COMMIT_TOP, type Step } from './commitment';
import type { Sampling } from './sampling';

/** llama.cpp's (and node-llama-cpp's) default top-k: no generator of the network samples outside it. */
export const SAMPLER_TOP_K = 40;
/** Tokens a repetition penalty looks back over (node-llama-cpp's and llama-server's default). */
export const REPEAT_WINDOW = 64;
/** Candidates the verifier reads per position: enough to count SAMPLER_TOP_K likelier tokens past a whole window. */
export const VERIFY_TOP = SAMPLER_TOP_K + REPEAT_WINDOW;
/** How much likelier (log probability) a token must be to count as clearly above another: hardware rounds differently. */
const ABOVE_MARGIN = 0.05;
/** Slack on the top-p bound (the two passes' rounding). */
const MASS_MARGIN = 0.02;

/**
 * How the job asked the reply to be sampled (its `json_schema`: generated under a grammar, which, not the model alone,
 * chose among tokens), and what the platform read from its schema.
 */
export type JudgedSampling = Pick<Sampling, 'temperature' | 'top_p' | 'min_p' | 'json_schema' | 'json_frame'> & {
  /**
   * The grammar's strings are free (its schema bounds no string: no enum, const, pattern, format or length): inside a
   * string any token without a quote, a backslash or a control character is allowed, so string contents are checked
   * against those tokens as free text is against all.
   */
  freeStrings?: boolean;
};

export interface StepsVerdict {
  passed: boolean;
  /** Positions checked (all of them when it passed). */
  checked: number;
  /** Why it failed, naming the first position that did. */
  why?: string;
}

const near = (a: number, b: number) => Math.abs(a - b) <= LOGPROB_TOLERANCE;

/** Whether a node's committed step is what the verifier recomputed: same token, values within tolerance, candidates by rank. */
function sameStep(node: Step, model: Step): boolean {
  if (node.token !== model.token || !near(node.logprob, model.logprob)) return false;
  const n = Math.min(COMMIT_TOP, model.top.length);
  if (node.top.length !== n) return false;
  for (let j = 0; j < n; j++) if (!near(node.top[j]![1], model.top[j]![1])) return false;
  return true;
}

/**
 * Whether two verifiers' recomputations of the same tokens agree: every position's log probability, and its candidates'
 * by rank, within LOGPROB_TOLERANCE (ranks, not ids: near-ties may swap places on other hardware).
 */
export function sameRecomputation(a: readonly Step[], b: readonly Step[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    if (x.token !== y.token || !near(x.logprob, y.logprob) || x.top.length !== y.top.length) return false;
    return x.top.every(([, lp], j) => near(lp, y.top[j]![1]));
  });
}

/**
 * Why the token at this recomputed step could not have been sampled, or null when it could. `seen` holds the tokens of
 * the REPEAT_WINDOW positions before it; `step.top` must hold the VERIFY_TOP likeliest tokens, most likely first.
 * `allowed` says which tokens the sampler could have chosen instead (a grammar allows fewer): only those count as
 * likelier; the top-k's mass is still every token's, which can only make the bound more lenient.
 */
export function samplingProblem(
  step: Step,
  seen: ReadonlySet<number>,
  sampling: JudgedSampling,
  allowed: (token: number) => boolean = () => true,
): string | null {
  const above = step.top.filter(([id, lp]) => id !== step.token && lp > step.logprob + ABOVE_MARGIN && !seen.has(id) && allowed(id));
  if (sampling.temperature <= 0 && above.length > 0) return `it is not the likeliest token (${above.length} likelier), at temperature 0`;
  if (above.length >= SAMPLER_TOP_K) return `it is outside the ${SAMPLER_TOP_K} likeliest tokens`;
  const topK = step.top.slice(0, SAMPLER_TOP_K).reduce((sum, [, lp]) => sum + Math.exp(lp), 0);
  const mass = above.reduce((sum, [, lp]) => sum + Math.exp(lp), 0) / topK;
  if (mass >= sampling.top_p + MASS_MARGIN)
    return `${(mass * 100).toFixed(1)}% of the distribution is clearly likelier, past top_p ${sampling.top_p}`;
  // min_p leaves out tokens below that share of the likeliest one; the likeliest is taken among the tokens no
  // penalty can have pushed down, so a penalized favourite never makes the bound stricter.
  const minP = sampling.min_p ?? 0;
  if (minP > 0) {
    const best = Math.max(step.logprob, ...step.top.filter(([id]) => !seen.has(id) && allowed(id)).map(([, lp]) => lp));
    if (step.logprob < best + Math.log(minP) - ABOVE_MARGIN) return `it is less likely than min_p ${minP} of the likeliest token`;
  }
  return null;
}

/**
 * Where a JSON text being written stands, character by character: inside a string or not, and whether that string is
 * an object's key (a schema's keys are literals its grammar writes, not free text) or a value.
 */
class JsonPlace {
  private readonly containers: Array<'object' | 'array'> = [];
  private expectKey = false;
  private string: 'key' | 'value' | null = null;
  private escaped = false;

  /** Inside a value string, past any escape: where a free string's grammar allows any token without a break. */
  inValueString(): boolean {
    return this.string === 'value' && !this.escaped;
  }

  read(text: string): void {
    for (const ch of text) {
      if (this.string) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.string = null;
        continue;
      }
      const top = this.containers.at(-1);
      if (ch === '"') this.string = top === 'object' && this.expectKey ? 'key' : 'value';
      else if (ch === '{') {
        this.containers.push('object');
        this.expectKey = true;
      } else if (ch === '[') this.containers.push('array');
      else if (ch === '}' || ch === ']') this.containers.pop();
      else if (ch === ':') this.expectKey = false;
      else if (ch === ',') this.expectKey = top === 'object';
    }
  }
}

/** Whether a token's text breaks a JSON string (a grammar may not allow it inside one): a quote, a backslash, a control character. */
const breaksString = (text: string): boolean => [...text].some((ch) => ch === '"' || ch === '\\' || ch.charCodeAt(0) < 0x20 || ch === '\u007f');

/**
 * Judges a reply's steps as the node committed them against the verifier's recomputation of the same tokens after
 * the same prompt (`promptTail`: the prompt's last tokens, for the repetition window; `pieces`: the tokens' texts).
 */
export function verifySteps(
  committed: readonly Step[],
  recomputed: readonly Step[],
  promptTail: readonly number[],
  sampling: JudgedSampling,
  pieces: Readonly<Record<number, string>> = {},
): StepsVerdict {
  if (committed.length !== recomputed.length)
    return { passed: false, checked: 0, why: `it committed ${committed.length} steps for ${recomputed.length} tokens` };
  const history = [...promptTail.slice(-REPEAT_WINDOW)];
  const json = new JsonPlace();
  const pieceOf = (id: number) => pieces[id] ?? '';
  // A tools reply that answers in plain text instead of a framed call: free text, its first token one the grammar
  // allowed there (any that does not open the call).
  const frame = sampling.json_frame;
  const textAnswer = !!frame?.or_text && !isFramedJson(frame, recomputed.map((s) => pieceOf(s.token)).join(''));
  for (const [i, model] of recomputed.entries()) {
    const fail = (why: string): StepsVerdict => ({ passed: false, checked: i + 1, why: `token ${i}: ${why}` });
    if (!sameStep(committed[i]!, model)) return fail("its committed log probabilities are not the model's");
    const seen = new Set(history.slice(-REPEAT_WINDOW));
    if (textAnswer) {
      const problem = samplingProblem(model, seen, sampling, i === 0 ? (id) => !isFramedJson(frame!, pieceOf(id)) : undefined);
      if (problem) return fail(problem);
    } else if (!sampling.json_schema) {
      const problem = samplingProblem(model, seen, sampling);
      if (problem) return fail(problem);
    } else if (sampling.freeStrings && json.inValueString() && !breaksString(pieceOf(model.token))) {
      // String content: judged among the tokens the grammar allows there (those it may not allow are left out).
      const problem = samplingProblem(model, seen, sampling, (id) => !breaksString(pieceOf(id)));
      if (problem) return fail(`inside a JSON string, ${problem}`);
    }
    json.read(pieceOf(model.token));
    history.push(model.token);
  }
  return { passed: true, checked: recomputed.length };
}

/**
 * How a reply ended: as its node said (`stop`, `length`, `abort`); `either` (a model proof): the model ended it, or
 * it reached the cap; `stopped`: the platform ended it (a stop, a client gone), so the node's tokens may run past the
 * text relayed before the stop reached it.
 */
export type ClaimedEnd = 'stop' | 'length' | 'abort' | 'either' | 'stopped';

/** How a reply ended, as its node claimed, and what the job allowed. */
export interface ReplyClaim {
  /** The text the platform relayed. */
  text: string;
  stopReason: ClaimedEnd;
  /** The job's sampling: its stop sequences, the completion cap the node was given, how tokens could be chosen. */
  sampling: JudgedSampling & Pick<Sampling, 'stop' | 'max_tokens'>;
}

/** What a verifier recomputed over the committed tokens (LlamaEngine.recompute). */
export interface Recomputation {
  steps: Step[];
  promptTail: number[];
  /** The tokens' text, end-of-generation tokens adding none. */
  text: string;
  /** Whether each token ends generation. */
  eog: boolean[];
  /** The text of each token of `steps` and of their candidates, decoded alone. */
  pieces?: Record<number, string>;
}

/**
 * The whole verdict on a reply: its commitment is whole and is the text relayed (a stop sequence's or a grammar's
 * trailing whitespace may follow it), its stop reason is what the tokens say (`length` exactly at the cap, `stop` on
 * the end-of-generation token or a stop sequence, nothing after the end; anything after the relayed text where the
 * platform stopped the reply), and every step passes verifySteps.
 */
export function verifyReply(committed: readonly Step[] | null, recomputed: Recomputation, claim: ReplyClaim): StepsVerdict {
  const fail = (why: string): StepsVerdict => ({ passed: false, checked: 0, why });
  if (!committed) return fail('it sent no commitment, or one that is not whole records');
  const end = recomputed.eog.indexOf(true);
  const ended = end === recomputed.eog.length - 1 && end >= 0;
  if (end >= 0 && !ended) return fail(`it went on after the end of generation (token ${end})`);
  const generated = recomputed.eog.length - (ended ? 1 : 0);
  const cap = claim.sampling.max_tokens;
  if (generated > cap) return fail(`it committed ${generated} tokens, past its cap of ${cap}`);
  // A leading space is the tokenizer's: generators keep or drop it alike.
  const full = recomputed.text.trimStart();
  const shown = claim.text.trimStart();
  if (!full.startsWith(shown)) return fail('its tokens are not the text it sent');
  const rest = full.slice(shown.length);
  const afterStop = !!claim.sampling.stop?.some((s) => s && rest.startsWith(s));
  const grammarEnd = !!claim.sampling.json_schema && rest.trim() === '';
  const consistent =
    claim.stopReason === 'stopped'
      ? true
      : claim.stopReason === 'either'
        ? rest === '' && (ended || generated === cap)
        : claim.stopReason === 'length'
          ? !ended && generated === cap && (rest === '' || grammarEnd)
          : claim.stopReason === 'stop'
            ? (ended && (rest === '' || grammarEnd)) || afterStop || grammarEnd
            : rest === '' || afterStop || grammarEnd;
  if (!consistent) return fail(`its tokens do not end as a "${claim.stopReason}" reply does`);
  return verifySteps(committed, recomputed.steps, recomputed.promptTail, claim.sampling, recomputed.pieces);
}
