import { Module } from '@nestjs/common';
import { UsersModule } from '../accounts/users.module';
import { PasskeysController } from './passkeys.controller';
import { PasskeysRepository } from './passkeys.repository';
import { PasskeysService } from './passkeys.service';
import { SecurityController } from './security.controller';
import { SessionsController } from './sessions.controller';
import { SignInChallenges } from './sign-in-challenges';
import { SignInSessionsService } from './sign-in-sessions.service';
import { TwoFactorKeys } from './two-factor-keys';
import { TwoFactorRepository } from './two-factor.repository';
import { TwoFactorService } from './two-factor.service';
import { WrongCodeLimits } from './wrong-code-limits';

/**
 * Two-factor sign-in and passkeys. Accounts imports it (sign-in asks it for a challenge and passes the second step through it),
 * so it reads users through the users module rather than importing Accounts back.
 */
@Module({
  imports: [UsersModule],
  controllers: [SecurityController, PasskeysController, SessionsController],
  providers: [
    TwoFactorRepository,
    TwoFactorService,
    PasskeysRepository,
    PasskeysService,
    TwoFactorKeys,
    SignInChallenges,
    WrongCodeLimits,
    SignInSessionsService,
  ],
  exports: [TwoFactorService, PasskeysService],
})
export class SecurityModule {}
