import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const JWT_ISSUER = 'glob-network';
export const JWT_AUDIENCE = 'glob-network-api';

/** A signed access token: HS256, `sub` = user id, `jti`, `iat`, `exp` 15 minutes later, our audience and issuer. */
export function signAccessToken(userId: string, secret: string): string {
  return jwt.sign({}, secret, {
    algorithm: 'HS256',
    subject: userId,
    jwtid: randomUUID(),
    audience: JWT_AUDIENCE,
    issuer: JWT_ISSUER,
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
  });
}
