/** A node that asked for work this recently counts as a peer that can verify another owner's work. */
export const PEER_ACTIVE_SECONDS = 60;
/** A check no peer claimed within this long is given up: it is decided without it. */
export const REPLAY_WAIT_SECONDS = 10;

/** The verdict on a node's reply (or a challenge's generation), by recomputation of the tokens it committed to. */
export interface SpotCheckVerdict {
  passed: boolean;
  /** Why it failed, naming the first position that did. */
  why?: string;
  /** Positions that passed before the first that did not (all of them when it passed). */
  matched: number;
  /** Tokens the node committed to. */
  nodeTokens: number;
  /** Tokens that had to pass. */
  required: number;
}
