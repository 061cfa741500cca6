import { Public } from '../../auth/public.decorator';
import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { ResponseBody } from '../../contract/types';
import { SystemService } from './system.service';

@Public()
@Controller('api')
export class SystemController {
  constructor(private readonly system: SystemService) {}

  @Get('health')
  async getHealth(@Res({ passthrough: true }) res: Response): Promise<ResponseBody<'getHealth', 200>> {
    const health = await this.system.health();
    if (health.status !== 'ok') res.status(503);
    return health;
  }

  @Get('stats/platform')
  getPlatformStats(): Promise<ResponseBody<'getPlatformStats', 200>> {
    return this.system.platformStats();
  }

  @Get('system/stats/platform')
  getSystemPlatformStats(): Promise<ResponseBody<'getSystemPlatformStats', 200>> {
    return this.system.platformStats();
  }
}
