import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { WalletModule } from '../wallet/wallet.module';
import { InferenceController } from './inference.controller';
import { InferenceService } from './inference.service';
import { NodesRepository } from './nodes.repository';
import { TasksService } from './tasks.service';

@Module({
  imports: [WalletModule, NotificationsModule, ChatModule],
  controllers: [InferenceController],
  providers: [InferenceService, NodesRepository, TasksService],
  exports: [TasksService, NodesRepository],
})
export class InferenceModule {}
