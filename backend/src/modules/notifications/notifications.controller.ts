import { Controller, Get, Param, Put, Query } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import type { QueryParams, ResponseBody } from '../../contract/types';
import { NotificationsService } from './notifications.service';

@Controller('api')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get('users/:id/notifications')
  listNotifications(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Query() query: QueryParams<'listNotifications', 'limit'>,
  ): Promise<ResponseBody<'listNotifications', 200>> {
    return this.notifications.list(user.id, id, query.limit, query.cursor);
  }

  @Put('notifications/:id/read')
  markNotificationRead(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<ResponseBody<'markNotificationRead', 200>> {
    return this.notifications.markRead(user.id, id);
  }
}
