import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { RateLimiter } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import { REDIS } from '../../redis/redis.module';
import { CHALLENGE_TTL_SECONDS } from './sign-in-challenges';

/** Wrong codes one challenge takes; the next try finds it used up (its sign-in starts again, password included). */
export const CHALLENGE_TRIES = 5;
/** The longest the account's tries are spaced out, however many wrong codes it has had. */
export const MAX_ACCOUNT_DELAY_SECONDS = 300;

const tooManyWrongCodes = (seconds: number) => `Too many wrong codes. Please try again in ${seconds} seconds.`;

const TRIES_IP = '2fa-ip';

/** Takes a try from a challenge's allowance; answers how many it has taken, this one included. */
const TAKE_CHALLENGE_TRY = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;
/** Records a wrong code against the account: its count and when, remembered for the window. */
const RECORD_WRONG = `
redis.call('HINCRBY', KEYS[1], 'wrong', 1)
redis.call('HSET', KEYS[1], 'at', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])`;

/** Who is trying: the client's IP, the account, and the sign-in challenge when the try completes one. */
export interface CodeTry {
  ip: string;
  userId: string;
  challengeToken?: string;
  /** What a used-up challenge answers (the sign-in's or the deletion's wording). */
  expired?: string;
}

/**
 * Wrong two-factor codes throttle whoever guesses, not the account's owner. Guessing is blocked per IP (TWO_FACTOR_IP
 * tries a window) and per challenge (CHALLENGE_TRIES, then the password again, itself rate-limited). Across the
 * account, wrong codes beyond TWO_FACTOR_RATE_LIMIT space its tries out, 1 s doubling to MAX_ACCOUNT_DELAY_SECONDS,
 * rather than locking it: and a challenge's first try is never delayed, so the owner who signs in afresh gets their
 * right code in at once however long someone else has been guessing.
 */
@Injectable()
export class WrongCodeLimits {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: RateLimiter,
  ) {}

  /** Before a code is checked: 429 (Retry-After) when the IP's tries are spent or the account's next try is not due. */
  async admit(t: CodeTry): Promise<void> {
    const perIp = this.config.rateLimits.twoFactorIp;
    const { count, resetMs } = await this.limiter.add(TRIES_IP, t.ip, 1, perIp.windowSeconds);
    if (count > perIp.limit) throw this.refused(resetMs);
    let first = false;
    if (t.challengeToken) {
      const n = Number(await this.redis.eval(TAKE_CHALLENGE_TRY, 1, this.challengeKey(t.challengeToken), String(CHALLENGE_TTL_SECONDS)));
      if (n > CHALLENGE_TRIES) throw new UnauthorizedException(t.expired);
      first = n === 1;
    }
    if (!first) {
      const wait = await this.accountWaitMs(t.userId);
      if (wait > 0) throw this.refused(wait);
    }
  }

  /** A wrong code: the account's count grows (and with it the spacing of its next tries). */
  async wrong(userId: string): Promise<void> {
    await this.redis.eval(RECORD_WRONG, 1, this.accountKey(userId), String(Date.now()), String(this.config.rateLimits.twoFactor.windowSeconds));
  }

  /** A right code: the IP's try comes back and the account starts afresh. */
  async right(ip: string, userId: string): Promise<void> {
    await this.limiter.giveBack(TRIES_IP, ip);
    await this.redis.del(this.accountKey(userId));
  }

  /** How long until the account's next try is due: 0 within the free wrong codes, else the spacing since the last one. */
  private async accountWaitMs(userId: string): Promise<number> {
    const [wrong, at] = await this.redis.hmget(this.accountKey(userId), 'wrong', 'at');
    const over = Number(wrong ?? 0) - this.config.rateLimits.twoFactor.limit;
    if (over < 0) return 0;
    const delaySeconds = Math.min(2 ** over, MAX_ACCOUNT_DELAY_SECONDS);
    return Number(at ?? 0) + delaySeconds * 1000 - Date.now();
  }

  private refused(ms: number): RateLimitedException {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return new RateLimitedException(seconds, tooManyWrongCodes(seconds));
  }

  private accountKey(userId: string): string {
    return `${this.config.redis.prefix}:2fa-wrong:${userId}`;
  }

  private challengeKey(token: string): string {
    return `${this.config.redis.prefix}:2fa-challenge-tries:${createHash('sha256').update(token).digest('hex')}`;
  }
}
