/**
 * How a node's reply must agree with a trusted generator's replay of the same request (same prompt, sampling and
 * seed): token for token over its first half, and at least its first SPOT_CHECK_PREFIX tokens (all of a shorter
 * reply). Generators on different hardware can round differently and drift apart late in a reply; a reply that is
 * not the model's output differs from the first tokens.
 */
export const SPOT_CHECK_PREFIX = 16;

/** A node that asked for work this recently counts as a peer that can replay another owner's work. */
export const PEER_ACTIVE_SECONDS = 60;
/** A replay no peer claimed within this long is given up: the check is decided without it. */
export const REPLAY_WAIT_SECONDS = 10;

export interface SpotCheckVerdict {
  passed: boolean;
  /** Why it failed when its tokens matched (the node's logprobs were not the model's). */
  why?: string;
  /** Tokens the two replies share from the start. */
  matched: number;
  /** Tokens of the node's reply. */
  nodeTokens: number;
  /** Tokens that had to match. */
  required: number;
}

/**
 * The part of a generation that is compared. llama-server (a pool's coordinator) keeps the space its first token
 * decodes to and node-llama-cpp drops it: the same reply either way, so a leading space never counts.
 */
export const comparable = (text: string) => text.trimStart();

export function judgeReplay(replay: number[], node: number[]): SpotCheckVerdict {
  let matched = 0;
  while (matched < replay.length && matched < node.length && replay[matched] === node[matched]) matched++;
  const required = Math.min(node.length, Math.max(SPOT_CHECK_PREFIX, Math.ceil(node.length / 2)));
  return { passed: matched >= required, matched, nodeTokens: node.length, required };
}
