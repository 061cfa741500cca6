import { Module } from '@nestjs/common';
import { WalletModule } from '../wallet/wallet.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { CodesService } from './codes.service';
import { WelcomeBonusClaims } from './mailboxes';
import { OAuthService } from './oauth.service';
import { PasswordsService } from './passwords';
import { SessionsService } from './sessions.service';

@Module({
  imports: [WalletModule],
  controllers: [AccountsController],
  providers: [AccountsService, SessionsService, CodesService, OAuthService, PasswordsService, WelcomeBonusClaims],
  exports: [AccountsService],
})
export class AccountsModule {}
