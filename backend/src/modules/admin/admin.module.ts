import { Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { UsersModule } from '../accounts/users.module';
import { AdminController } from './admin.controller';
import { AdminService, QUEUE_DASHBOARD_PATH } from './admin.service';
import { QueueDashboard } from './queue-dashboard';

/**
 * Operators: the role, and the queue dashboard at /admin/queues. The dashboard is an Express router mounted on the
 * HTTP server while the application is created, ahead of everything configureApi adds (the spec validator, and the
 * web app's pages, which would otherwise answer /admin/queues with the app's own 404 page); it has its own guard.
 */
@Module({
  imports: [UsersModule],
  controllers: [AdminController],
  providers: [AdminService, QueueDashboard],
})
export class AdminModule {
  constructor(adapterHost: HttpAdapterHost, dashboard: QueueDashboard) {
    adapterHost.httpAdapter?.use(QUEUE_DASHBOARD_PATH, dashboard.router());
  }
}
