/** One candidate token at a position of a reply: its text, natural-log probability and UTF-8 bytes. */
export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** One token of a reply, in order (OpenAI's shape): the tokens' texts joined are the reply's text. */
export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

/** A token as a generator scored it, before its text is aligned with the reply's. */
export interface ScoredToken {
  /** The token's text: empty for one that only begins a character, the character whole on the token that ends it. */
  piece: string;
  logprob: number;
  top: Array<{ piece: string; logprob: number }>;
}

const bytesOf = (text: string): number[] => Array.from(Buffer.from(text, 'utf8'));

/** The log probability of a token the model gives no chance (JSON has no -Infinity). */
export const LOGPROB_FLOOR = -9999;

/** A generator's log probability as the API answers it: between LOGPROB_FLOOR and 0, whatever rounding gave. */
export const clampLogprob = (value: number | null): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(LOGPROB_FLOOR, Math.min(0, value)) : LOGPROB_FLOOR;

/** log(p) as a log probability. */
export const logOf = (p: number): number => clampLogprob(Math.log(p));

/**
 * The scored tokens with texts that join to exactly `text`: a token whose piece is not the text at its place (a
 * tokenizer that decodes a token apart differently) gets an empty text, and the last token what is left.
 */
export function alignLogprobs(text: string, scored: ScoredToken[]): TokenLogprob[] {
  let at = 0;
  return scored.map((s, i) => {
    let token = s.piece && text.startsWith(s.piece, at) ? s.piece : '';
    if (i === scored.length - 1) token = text.slice(at);
    at += token.length;
    return {
      token,
      logprob: s.logprob,
      bytes: bytesOf(token),
      top_logprobs: s.top.map((t) => ({ token: t.piece, logprob: t.logprob, bytes: bytesOf(t.piece) })),
    };
  });
}

/**
 * Token ids' texts in order, a character split across tokens given whole to the token that ends it (the tokens before
 * get ''): `decode` turns the ids from index `start` into text, U+FFFD at its end while a character is unfinished.
 */
export function tokenPieces(tokens: readonly number[], decode: (ids: number[], start: number) => string): string[] {
  const pieces: string[] = [];
  let group: number[] = [];
  for (const [i, t] of tokens.entries()) {
    group.push(t);
    const text = decode(group, i + 1 - group.length);
    // Up to 4 tokens for one character (its 4 bytes); past that it is not a split character but a bad byte.
    if (text.endsWith('\uFFFD') && group.length < 4) pieces.push('');
    else {
      pieces.push(text);
      group = [];
    }
  }
  return pieces;
}

/** How many of the pieces it takes to show `length` characters of their text (those after add nothing shown). */
export function piecesWithin(pieces: readonly string[], length: number): number {
  let at = 0;
  for (const [i, piece] of pieces.entries()) {
    if (at >= length && piece) return i;
    at += piece.length;
  }
  return pieces.length;
}

/** The tokens of the first `length` characters of their text (a reply cut at a stop sequence keeps those it shows). */
export function cutLogprobs(logprobs: TokenLogprob[], length: number): TokenLogprob[] {
  let at = 0;
  return logprobs
    .slice(
      0,
      piecesWithin(
        logprobs.map((t) => t.token),
        length,
      ),
    )
    .map((t) => {
      const token = t.token.slice(0, Math.max(0, length - at));
      at += token.length;
      return token === t.token ? t : { ...t, token, bytes: bytesOf(token) };
    });
}

/**
 * What is wrong with a generator's logprobs for `text`, or null when they are well formed: their texts join to the
 * text, each token's bytes are its text, every log probability is at most 0, and each position has exactly `top`
 * candidates, most likely first, the token's own no likelier than the first.
 */
export function logprobsProblem(text: string, logprobs: TokenLogprob[], top: number): string | null {
  let joined = '';
  for (const [i, t] of logprobs.entries()) {
    const where = `token ${i}`;
    if (!(t.logprob <= 0) || !Number.isFinite(t.logprob)) return `${where} has log probability ${t.logprob}`;
    if (bytesOf(t.token).join() !== t.bytes.join()) return `${where}'s bytes are not its text`;
    if (t.top_logprobs.length !== top) return `${where} has ${t.top_logprobs.length} candidates, not ${top}`;
    for (const [j, c] of t.top_logprobs.entries()) {
      if (!(c.logprob <= 0) || !Number.isFinite(c.logprob)) return `${where}'s candidate ${j} has log probability ${c.logprob}`;
      if (bytesOf(c.token).join() !== c.bytes.join()) return `${where}'s candidate ${j}'s bytes are not its text`;
      if (j > 0 && c.logprob > t.top_logprobs[j - 1]!.logprob) return `${where}'s candidates are not most likely first`;
    }
    if (top > 0 && t.logprob > t.top_logprobs[0]!.logprob + 1e-4) return `${where} is likelier than its most likely candidate`;
    joined += t.token;
  }
  return joined === text ? null : 'the tokens are not the text';
}

/** How far two runs of one model may put the same token's log probability apart (hardware and threads round differently). */
export const LOGPROB_TOLERANCE = 0.1;

/**
 * Whether a node's logprobs are what the model gives its text: the same tokens, each log probability and each of its
 * candidates' (by rank: near a tie they may come in either order) within LOGPROB_TOLERANCE.
 */
export function sameLogprobs(node: TokenLogprob[], model: TokenLogprob[]): boolean {
  if (node.length !== model.length) return false;
  const near = (a: number, b: number) => Math.abs(a - b) <= LOGPROB_TOLERANCE;
  return node.every((t, i) => {
    const m = model[i]!;
    if (t.token !== m.token || !near(t.logprob, m.logprob) || t.top_logprobs.length !== m.top_logprobs.length) return false;
    return t.top_logprobs.every((c, j) => near(c.logprob, m.top_logprobs[j]!.logprob));
  });
}
