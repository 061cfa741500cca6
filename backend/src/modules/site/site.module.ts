import { Module } from '@nestjs/common';
import { ContactRepository } from './contact.repository';
import { ContactService } from './contact.service';
import { DownloadsRepository } from './downloads.repository';
import { DownloadsService } from './downloads.service';
import { ReleasesRepository } from './releases.repository';
import { ReleasesService } from './releases.service';
import { SiteController } from './site.controller';

@Module({
  controllers: [SiteController],
  providers: [ReleasesRepository, DownloadsRepository, ContactRepository, ReleasesService, DownloadsService, ContactService],
})
export class SiteModule {}
