import { Module } from '@nestjs/common';
import { ContactService } from './contact.service';
import { DownloadsService } from './downloads.service';
import { ReleasesService } from './releases.service';
import { SiteController } from './site.controller';

@Module({ controllers: [SiteController], providers: [ReleasesService, DownloadsService, ContactService] })
export class SiteModule {}
