import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RequestBody, Schemas } from '../../contract/types';
import { DownloadEvent } from './entities/download.entity';

@Injectable()
export class DownloadsService {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Stores the click and bumps the platform's counter in one transaction. */
  async record(event: RequestBody<'trackDownload'>, userAgentHeader?: string): Promise<Schemas['DownloadRecorded']> {
    return this.db.transaction(async (em) => {
      const saved = await em.save(
        em.create(DownloadEvent, {
          platform: event.platform,
          asset: event.asset,
          clientTimestamp: event.timestamp ? new Date(event.timestamp) : null,
          userAgent: (event.userAgent ?? userAgentHeader ?? null)?.slice(0, 1024) ?? null,
        }),
      );
      const [row] = (await em.query(
        `INSERT INTO download_counts (platform, downloads) VALUES ($1, 1)
         ON CONFLICT (platform) DO UPDATE SET downloads = download_counts.downloads + 1
         RETURNING downloads`,
        [event.platform],
      )) as Array<{ downloads: string }>;
      return { id: saved.id, platform: event.platform, platform_downloads: Number(row!.downloads) };
    });
  }
}
