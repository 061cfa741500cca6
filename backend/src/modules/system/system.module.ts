import { Module } from '@nestjs/common';
import { StatsRepository } from './stats.repository';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Module({ controllers: [SystemController], providers: [SystemService, StatsRepository] })
export class SystemModule {}
