import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { WalletModule } from '../wallet/wallet.module';
import { RewardsRepository } from './rewards.repository';
import { RewardsService } from './rewards.service';

/** What providers earn: pricing of work into rewards, their funding (charges' shares and the emission) and settlement. */
@Module({
  imports: [WalletModule, NotificationsModule],
  providers: [RewardsService, RewardsRepository],
  exports: [RewardsService],
})
export class RewardsModule {}
