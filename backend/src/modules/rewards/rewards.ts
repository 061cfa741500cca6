import { proportional } from '../../common/proportional';
import { parameterCount } from '../../common/parameter-count';
import { UNITS_PER_GLOB } from '../../common/units';

/**
 * The reward of a standard task: 25 GLOB base × difficulty (1.0-3.0) × hardware score (0.5-2.0), typically 25-150
 * GLOB. A standard task processes STANDARD_TASK_TOKENS tokens (prompt and completion); a task earns in proportion to
 * the tokens it processed, never more than its charge allows (rewardUnits, cappedReward).
 */
export const REWARD_BASE_GLOB = 25;
export const STANDARD_TASK_TOKENS = 1000;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * Difficulty of a task from the model's size and the tokens processed: 1.0 for a small model and a short
 * reply, up to 3.0. Size adds up to 1.5 (log scale: ~0.3 at 1B, ~0.75 at 8B, ~1.4 at 70B), tokens up to 0.5
 * (per 4,096 processed).
 */
export function taskDifficulty(parameters: string, totalTokens: number): number {
  const billions = parameterCount(parameters) / 1e9;
  const size = clamp(Math.log10(1 + billions) * 0.75, 0, 1.5);
  const work = clamp(totalTokens / 4096, 0, 0.5);
  return Math.round(clamp(1 + size + work, 1, 3) * 100) / 100;
}

/** The score of a node whose speed the platform has not measured enough yet. */
export const LOWEST_HARDWARE_SCORE = 0.5;

/** Hardware score from a short generation benchmark: 0.5 at ≤ 50 tokens/s, 2.0 at ≥ 2,000 (log scale). */
export function hardwareScore(tokensPerSecond: number, gpu: boolean): number {
  const tps = Math.max(1, tokensPerSecond);
  const score = 0.5 + (Math.log10(tps / 50) / Math.log10(2000 / 50)) * 1.5 + (gpu ? 0.25 : 0);
  return Math.round(clamp(score, LOWEST_HARDWARE_SCORE, 2.0) * 100) / 100;
}

/** The reward for `tokens` processed, in milli-GLOB (rounded down): a standard task's, pro rata. */
export function rewardUnits(difficulty: number, score: number, tokens: number): number {
  return Math.floor((REWARD_BASE_GLOB * difficulty * score * UNITS_PER_GLOB * Math.max(0, tokens)) / STANDARD_TASK_TOKENS);
}

/**
 * A task's reward as recorded: its work's reward, at most the part of its charge that funds rewards; the emission may
 * add up to the rest of the charge later (emissionShares), never more.
 */
export function cappedReward(workUnits: number, chargedUnits: number, sharePercent: number): number {
  return Math.max(0, Math.min(workUnits, rewardShareUnits(chargedUnits, sharePercent)));
}

/**
 * `pool` shared in proportion to `weights` (each reward's work), each part at most its `room` (what lifts that reward
 * to its charge); what a capped part cannot take goes to the others. Whole units; the parts add up to at most `pool`.
 */
export function emissionShares(pool: number, weights: number[], room: number[]): number[] {
  const parts = weights.map(() => 0);
  let left = pool;
  let open = weights.map((_, i) => i).filter((i) => weights[i]! > 0 && room[i]! > 0);
  while (left > 0 && open.length) {
    const split = proportional(
      left,
      open.map((i) => weights[i]!),
    );
    const still: number[] = [];
    open.forEach((i, k) => {
      const add = Math.min(room[i]! - parts[i]!, split[k]!);
      parts[i]! += add;
      left -= add;
      if (parts[i]! < room[i]!) still.push(i);
    });
    if (still.length === open.length) break;
    open = still;
  }
  return parts;
}

/**
 * The part of a reward `units` paid as welcome bonus: the reward carries its task's charge's mix, so what the charge
 * paid from bonus reaches the node's owner as bonus. Its transferable part is rounded down.
 */
export function rewardBonusUnits(units: number, chargedUnits: number, chargedBonusUnits: number): number {
  if (chargedUnits <= 0) return units;
  const transferable = (BigInt(units) * BigInt(chargedUnits - chargedBonusUnits)) / BigInt(chargedUnits);
  return units - Number(transferable);
}

/** The part of a task's charge that funds rewards (REWARD_SHARE_PERCENT), in whole units. */
export function rewardShareUnits(chargedUnits: number, sharePercent: number): number {
  return Math.floor((chargedUnits * sharePercent) / 100);
}

/**
 * A verification earns this share of what the same tokens earn as a reply: a recomputation is one pass over prompt and
 * reply, measured at about 0.44 × the cost of generating the reply (bench/verification.mjs).
 */
export const VERIFICATION_REWARD_PERCENT = 50;

/**
 * A verifier's reward for recomputing a reply of `tokens` (prompt and completion), at most what is left of the
 * platform's share of the reply's charge (`room`): the requester never pays for checks, the platform does.
 */
export function verificationRewardUnits(difficulty: number, score: number, tokens: number, room: number): number {
  return Math.max(0, Math.min(room, Math.floor((rewardUnits(difficulty, score, tokens) * VERIFICATION_REWARD_PERCENT) / 100)));
}
