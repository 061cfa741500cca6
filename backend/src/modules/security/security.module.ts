import { Module } from '@nestjs/common';
import { RateLimiter } from '../../common/rate-limit';
import { UsersRepository } from '../accounts/users.repository';
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

/**
 * Two-factor sign-in and passkeys. Accounts imports it (sign-in asks it for a challenge and passes the second step through it),
 * so it reads users through the repository directly rather than importing Accounts back.
 */
@Module({
  controllers: [SecurityController, PasskeysController, SessionsController],
  providers: [
    TwoFactorRepository,
    TwoFactorService,
    PasskeysRepository,
    PasskeysService,
    TwoFactorKeys,
    SignInChallenges,
    SignInSessionsService,
    UsersRepository,
    RateLimiter,
  ],
  exports: [TwoFactorService, PasskeysService],
})
export class SecurityModule {}
