import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { REDIS } from '../../redis/redis.module';

/** How long a sign-in waits for its second step. */
export const CHALLENGE_TTL_SECONDS = 300;

/** A sign-in that passed its first step and waits for a code. */
export interface PendingSignIn {
  userId: string;
  /** A password reset proved by e-mail: the new password's hash, set only once the second step passes. */
  passwordHash?: string;
  /**
   * What the second step completes: a sign-in (absent), or an account deletion proved by e-mail. Neither kind
   * completes the other: a deletion challenge never opens a session, a sign-in's never deletes.
   */
  purpose?: 'deletion';
}

/**
 * Sign-in challenges in Redis, under the SHA-256 of their random token (the token itself is never stored),
 * expiring after CHALLENGE_TTL_SECONDS and used up by the sign-in they complete.
 */
@Injectable()
export class SignInChallenges {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private key(token: string): string {
    return `${this.config.redis.prefix}:2fa-challenge:${createHash('sha256').update(token).digest('hex')}`;
  }

  async issue(pending: PendingSignIn): Promise<string> {
    const token = `tfc_${randomBytes(32).toString('base64url')}`;
    await this.redis.set(this.key(token), JSON.stringify(pending), 'EX', CHALLENGE_TTL_SECONDS);
    return token;
  }

  /** The pending sign-in, still usable (a wrong code does not use it up). */
  async peek(token: string): Promise<PendingSignIn | null> {
    const raw = await this.redis.get(this.key(token));
    return raw ? (JSON.parse(raw) as PendingSignIn) : null;
  }

  /** Uses the challenge up; false when another request did first or it expired meanwhile. */
  async consume(token: string): Promise<boolean> {
    return (await this.redis.del(this.key(token))) === 1;
  }
}
