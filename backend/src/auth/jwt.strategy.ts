import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
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
 * and its sign-in has not ended (logout, revocation, a detected refresh-token reuse, a password reset).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(DataSource) private readonly db: DataSource,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.jwt.accessSecret,
      algorithms: ['HS256'],
      audience: JWT_AUDIENCE,
      issuer: JWT_ISSUER,
      ignoreExpiration: false,
    });
  }

  async validate(claims: AccessClaims): Promise<AuthUser | false> {
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.sid !== 'string' || !UUID.test(claims.sid)) return false;
    const rows = (await this.db.query(
      `SELECT 1 FROM users u WHERE u.id = $1 AND u.deleted_at IS NULL
         AND EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = $2::uuid AND r.user_id = u.id AND r.revoked_at IS NULL)`,
      [claims.sub, claims.sid],
    )) as unknown[];
    return rows.length ? { id: claims.sub, tokenId: claims.jti } : false;
  }
}
