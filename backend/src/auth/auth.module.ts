import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { SessionsRepository } from '../modules/accounts/sessions.repository';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtStrategy } from './jwt.strategy';

/** Bearer authentication for the whole API (passport-jwt behind one global guard). */
@Global()
@Module({
  imports: [PassportModule],
  // The sign-ins' table is read on every request (is this access token's sign-in still live?).
  providers: [SessionsRepository, JwtStrategy, { provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [SessionsRepository],
})
export class AuthModule {}
