import { Controller, Get, Put } from '@nestjs/common';
import { notYetAvailable } from '../../contract/errors';

/**
 * The notifications operations of the spec. Not live yet: each answers 501 with the Error body until the
 * notifications issue lands (request validation against the spec already applies).
 */
@Controller('api')
export class NotificationsController {
  /** A user's notifications */
  @Get('users/:id/notifications')
  listNotifications(): never {
    return notYetAvailable();
  }

  /** Mark a notification read */
  @Put('notifications/:id/read')
  markNotificationRead(): never {
    return notYetAvailable();
  }
}
