import { Injectable } from '@nestjs/common';
import type { Schemas } from '../../contract/types';
import { Repository, type Tx } from '../../database/repository';

export interface NewDownload {
  platform: Schemas['AssetPlatform'];
  asset: string;
  clientTimestamp: Date | null;
  userAgent: string | null;
}

/** The download_events table and its per-platform counters (download_counts). */
@Injectable()
export class DownloadsRepository extends Repository {
  /** Stores one click; its id. */
  async insertEvent(d: NewDownload, tx: Tx): Promise<string> {
    const row = await this.one<{ id: string }>(
      `INSERT INTO download_events (platform, asset, client_timestamp, user_agent) VALUES ($1, $2, $3, $4) RETURNING id`,
      [d.platform, d.asset, d.clientTimestamp, d.userAgent],
      tx,
    );
    return row!.id;
  }

  /** Bumps the platform's counter; its new value. */
  async bump(platform: Schemas['AssetPlatform'], tx: Tx): Promise<number> {
    const row = await this.one<{ downloads: string }>(
      `INSERT INTO download_counts (platform, downloads) VALUES ($1, 1)
       ON CONFLICT (platform) DO UPDATE SET downloads = download_counts.downloads + 1
       RETURNING downloads`,
      [platform],
      tx,
    );
    return Number(row!.downloads);
  }
}
