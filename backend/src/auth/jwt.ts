import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const JWT_ISSUER = 'glob-network';
export const JWT_AUDIENCE = 'glob-network-api';

/**
 * A signed access token: HS256, `sub` = user id, `sid` = the sign-in it belongs to (checked on every request,
 * so it stops working when the sign-in ends), `jti`, `iat`, `exp` 15 minutes later, our audience and issuer.
 */
export function signAccessToken(userId: string, sessionId: string, secret: string): string {
  return jwt.sign({ sid: sessionId }, secret, {
    algorithm: 'HS256',
    subject: userId,
    jwtid: randomUUID(),
    audience: JWT_AUDIENCE,
    issuer: JWT_ISSUER,
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
  });
}
