import { Injectable } from '@nestjs/common';
import { ConfiguredRepository, type Tx } from '../../database/repository';
import { liveNode } from '../inference/nodes.repository';

export interface StatsRow {
  active_users: string;
  total_tasks: string;
  bytes_processed: string;
  active_nodes: string;
  connected_peers: string;
  active_tasks: string;
  pending_tasks: string;
  failed_tasks: string;
}

/** Read-only counts over users, nodes and inference_tasks, for the platform's public figures and health. */
@Injectable()
export class StatsRepository extends ConfiguredRepository {
  async counts(tx?: Tx): Promise<StatsRow> {
    const row = await this.one<StatsRow>(
      `SELECT
         (SELECT count(*) FROM users WHERE deleted_at IS NULL) AS active_users,
         (SELECT count(*) FROM inference_tasks WHERE status = 'completed') AS total_tasks,
         (SELECT coalesce(sum(bytes_processed), 0) FROM inference_tasks WHERE status = 'completed') AS bytes_processed,
         (SELECT count(*) FROM nodes n WHERE ${liveNode('n', '$1')}) AS active_nodes,
         (SELECT count(DISTINCT owner_id) FROM nodes n WHERE ${liveNode('n', '$1')}) AS connected_peers,
         (SELECT count(*) FROM inference_tasks WHERE status = 'running') AS active_tasks,
         (SELECT count(*) FROM inference_tasks WHERE status = 'queued') AS pending_tasks,
         (SELECT count(*) FROM inference_tasks WHERE status = 'failed') AS failed_tasks`,
      [this.config.inference.nodeLiveSeconds],
      tx,
    );
    return row!;
  }

  async ping(tx?: Tx): Promise<void> {
    await this.rows('SELECT 1', [], tx);
  }
}
