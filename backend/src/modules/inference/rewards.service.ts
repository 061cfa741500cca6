import { Injectable } from '@nestjs/common';
import { RewardsRepository, type NodeRewardTotals } from './rewards.repository';

/** Node rewards: recorded pending when a task completes, paid from the rewards account after the settlement window. */
@Injectable()
export class RewardsService {
  constructor(private readonly rewards: RewardsRepository) {}

  /** Per node (every id asked for, zeros included): units paid and units still pending. */
  async totalsByNode(nodeIds: string[]): Promise<Map<string, NodeRewardTotals>> {
    const found = nodeIds.length ? await this.rewards.totalsByNode(nodeIds) : new Map<string, NodeRewardTotals>();
    return new Map(nodeIds.map((id) => [id, found.get(id) ?? { earnedUnits: 0, pendingUnits: 0 }]));
  }
}
