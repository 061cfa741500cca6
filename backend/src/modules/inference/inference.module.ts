import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ChatModule } from '../chat/chat.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { WalletModule } from '../wallet/wallet.module';
import { InferenceController } from './inference.controller';
import { InferenceService } from './inference.service';
import { EmbeddingsService } from './embeddings.service';
import { FairQueue } from './fair-queue';
import { NodesRepository } from './nodes.repository';
import { TasksRepository } from './tasks.repository';
import { ReplyReaper } from './reaper.service';
import { RepliesService } from './replies.service';
import { RewardsModule } from '../rewards/rewards.module';
import { StreamHub } from './stream-hub';
import { StreamSlots } from './stream-slots';
import { TasksService } from './tasks.service';

@Module({
  imports: [WalletModule, NotificationsModule, ChatModule, RewardsModule, ApiKeysModule],
  controllers: [InferenceController],
  providers: [
    InferenceService,
    EmbeddingsService,
    NodesRepository,
    TasksRepository,
    TasksService,
    FairQueue,
    StreamHub,
    StreamSlots,
    ReplyReaper,
    RepliesService,
    // The key a reply was asked for with: its daily limit at the hold, its usage when the reply settles.
  ],
  exports: [TasksService, NodesRepository, TasksRepository, RepliesService, InferenceService, EmbeddingsService],
})
export class InferenceModule {}
