import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { SecurityModule } from '../security/security.module';
import { WalletModule } from '../wallet/wallet.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { CodesRepository } from './codes.repository';
import { CodesService } from './codes.service';
import { WelcomeBonusClaims } from './mailboxes';
import { OAuthService } from './oauth.service';
import { PasswordsService } from './passwords';
import { SessionsService } from './sessions.service';
import { UsersModule } from './users.module';

@Module({
  imports: [WalletModule, NotificationsModule, ChatModule, SecurityModule, UsersModule],
  controllers: [AccountsController],
  providers: [CodesRepository, AccountsService, SessionsService, CodesService, OAuthService, PasswordsService, WelcomeBonusClaims],
  exports: [AccountsService],
})
export class AccountsModule {}
