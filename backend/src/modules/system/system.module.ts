import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';
import { StatsRepository } from './stats.repository';
import { SystemController } from './system.controller';
import { SystemService } from './system.service';

@Module({ controllers: [SystemController], providers: [SystemService, MetricsService, StatsRepository], exports: [SystemService] })
export class SystemModule {}
