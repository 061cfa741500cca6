import { Inject, Injectable } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { SessionsRepository } from '../modules/accounts/sessions.repository';
import type { AuthUser } from './auth-user';
import { JWT_AUDIENCE, JWT_ISSUER } from './jwt';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface AccessClaims {
  sub: string;
  sid: string;
  jti: string;
}

/**
 * Bearer access tokens: HS256 only (pinned), our audience and issuer, not expired, the account still exists,
 * and its sign-in has not ended (logout, revocation, a detected refresh-token reuse, a password reset). A request
 * counts as the sign-in's use ("Last used" in the sessions list moves while it is in use, not only at each refresh).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionsRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A key object, made once: given the string, jsonwebtoken tries it as a PEM public key on every request first.
      secretOrKey: createSecretKey(Buffer.from(config.jwt.accessSecret, 'utf8')) as unknown as string,
      algorithms: ['HS256'],
      audience: JWT_AUDIENCE,
      issuer: JWT_ISSUER,
      ignoreExpiration: false,
    });
  }

  async validate(claims: AccessClaims): Promise<AuthUser | false> {
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.sid !== 'string' || !UUID.test(claims.sid)) return false;
    return (await this.sessions.useIfLive(claims.sub, claims.sid)) ? { id: claims.sub, tokenId: claims.jti, sessionId: claims.sid } : false;
  }
}
