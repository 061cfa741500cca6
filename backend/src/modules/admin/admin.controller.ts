import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { RateLimit, type RateLimitRule } from '../../common/rate-limit';
import type { ResponseBody } from '../../contract/types';
import { AdminService } from './admin.service';

/** Opening the dashboard is counted per IP with the sign-in's per-IP limit. */
const OPEN_DASHBOARD: RateLimitRule = { name: 'queue-dashboard', limit: (c) => c.rateLimits.loginIp };

/** Tag `admin`: operators. Anyone who is not one gets 404 (AdminService). */
@Controller('api/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post('queues/session')
  @HttpCode(200)
  @RateLimit(OPEN_DASHBOARD)
  async openQueueDashboard(
    @CurrentUser() user: AuthUser,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResponseBody<'openQueueDashboard', 200>> {
    const { cookie, body } = await this.admin.openQueueDashboard(user, req.secure);
    res.cookie(cookie.name, cookie.value, cookie.options);
    return body;
  }
}
