/** A node's speed as the platform measures it from the jobs it serves, and the hardware score that follows from it. */
import { Injectable } from '@nestjs/common';
import { hardwareScore, LOWEST_HARDWARE_SCORE } from '../rewards/rewards';
import type { Assignment } from './node-job-store';
import { ProviderNodesRepository } from './provider-nodes.repository';

/** Weight of the newest job in a node's measured speed. */
const SPEED_WEIGHT = 0.3;
/** Completion tokens a node serves, as the platform counted and timed them, before its measured speed sets its score. */
export const SCORE_WARMUP_TOKENS = 512;

@Injectable()
export class NodeSpeedService {
  constructor(private readonly nodes: ProviderNodesRepository) {}

  /**
   * A node's speed as the platform saw it, on its own clock: the completion tokens it counted over the time from the
   * claim to the end, averaged over jobs, so holding tokens back and sending them in a burst only lowers it. Its
   * hardware score follows this speed once SCORE_WARMUP_TOKENS are measured, and is the lowest until then; what the
   * node claims (its benchmark, a GPU) never counts.
   */
  async recordSpeed(a: Assignment, completionTokens: number, endedAt: number): Promise<void> {
    const ms = endedAt - a.claimedAt;
    if (completionTokens < 1 || ms <= 0) return;
    const measured = await this.nodes.addSpeed(a.nodeId, completionTokens / (ms / 1000), completionTokens, SPEED_WEIGHT);
    if (!measured) return;
    const score = Number(measured.measured_tokens) >= SCORE_WARMUP_TOKENS ? hardwareScore(measured.measured_tps, false) : LOWEST_HARDWARE_SCORE;
    await this.nodes.setScore(a.nodeId, score, measured.measured_tokens);
  }
}
