import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';
import { PurchasesRepository } from './purchases.repository';
import { WalletController } from './wallet.controller';
import { WalletService } from './wallet.service';

@Module({
  imports: [NotificationsModule],
  controllers: [WalletController],
  providers: [LedgerRepository, PurchasesRepository, IdempotencyKeysRepository, LedgerService, WalletService],
  exports: [LedgerService, WalletService],
})
export class WalletModule {}
