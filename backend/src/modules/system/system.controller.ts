import { Public } from '../../auth/public.decorator';
import { Controller, Get, Headers, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { ResponseBody } from '../../contract/types';
import { MetricsService } from './metrics.service';
import { SystemService } from './system.service';

@Public()
@Controller()
export class SystemController {
  constructor(
    private readonly system: SystemService,
    private readonly metrics: MetricsService,
  ) {}

  @Get('api/health')
  getHealth(@Res({ passthrough: true }) res: Response): Promise<ResponseBody<'getHealth', 200>> {
    return this.getReadiness(res);
  }

  @Get('api/health/live')
  getLiveness(): ResponseBody<'getLiveness', 200> {
    return this.system.liveness();
  }

  @Get('api/health/ready')
  async getReadiness(@Res({ passthrough: true }) res: Response): Promise<ResponseBody<'getReadiness', 200>> {
    const health = await this.system.readiness();
    if (health.status !== 'ok') res.status(503);
    return health;
  }

  /** Prometheus' scrape: guarded by METRICS_TOKEN inside the service (404 without one set). */
  @Get('metrics')
  async getMetrics(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) res: Response): Promise<string> {
    const { contentType, body } = await this.metrics.scrape(authorization);
    res.type(contentType);
    return body;
  }

  @Get('api/stats/platform')
  getPlatformStats(): Promise<ResponseBody<'getPlatformStats', 200>> {
    return this.system.platformStats();
  }

  @Get('api/system/stats/platform')
  getSystemPlatformStats(): Promise<ResponseBody<'getSystemPlatformStats', 200>> {
    return this.system.platformStats();
  }
}
