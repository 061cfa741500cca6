import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { AuthUser } from './auth-user';
import { JWT_AUDIENCE, JWT_ISSUER } from './jwt';

interface AccessClaims {
  sub: string;
  jti: string;
}

/** Bearer access tokens: HS256 only (pinned), our audience and issuer, not expired, and the account still exists. */
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
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string') return false;
    const rows = (await this.db.query(`SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL`, [claims.sub])) as unknown[];
    return rows.length ? { id: claims.sub, tokenId: claims.jti } : false;
  }
}
