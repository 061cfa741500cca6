import constants from '@glob/contract/constants.json';
import { Injectable } from '@nestjs/common';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { DownloadsRepository } from './downloads.repository';

@Injectable()
export class DownloadsService {
  constructor(
    private readonly downloads: DownloadsRepository,
    private readonly transactions: Transactions,
  ) {}

  /** Stores the click and bumps the platform's counter in one transaction. */
  async record(event: RequestBody<'trackDownload'>, userAgentHeader?: string): Promise<Schemas['DownloadRecorded']> {
    return this.transactions.run(async (tx) => {
      const id = await this.downloads.insertEvent(
        {
          platform: event.platform,
          asset: event.asset,
          clientTimestamp: event.timestamp ? new Date(event.timestamp) : null,
          userAgent: (event.userAgent ?? userAgentHeader ?? null)?.slice(0, constants.fieldLimits.DownloadEvent.userAgent.maxLength) ?? null,
        },
        tx,
      );
      return { id, platform: event.platform, platform_downloads: await this.downloads.bump(event.platform, tx) };
    });
  }
}
