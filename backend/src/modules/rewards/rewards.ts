import { parameterCount } from './catalog';
import { UNITS_PER_GLOB } from '../wallet/units';

/** A task's reward: 25 GLOB base × difficulty (1.0-3.0) × hardware score (0.5-2.0). */
export const REWARD_BASE_GLOB = 25;

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

/** The reward in milli-GLOB. */
export function rewardUnits(difficulty: number, score: number): number {
  return Math.round(REWARD_BASE_GLOB * difficulty * score * UNITS_PER_GLOB);
}

/** The part of a task's charge that funds rewards (REWARD_SHARE_PERCENT), in whole units. */
export function rewardShareUnits(chargedUnits: number, sharePercent: number): number {
  return Math.floor((chargedUnits * sharePercent) / 100);
}
