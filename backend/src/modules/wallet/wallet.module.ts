import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { LedgerService } from './ledger.service';
import { WalletController } from './wallet.controller';
import { WalletService } from './wallet.service';

@Module({
  imports: [NotificationsModule],
  controllers: [WalletController],
  providers: [LedgerService, WalletService],
  exports: [LedgerService],
})
export class WalletModule {}
