import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import type { Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { CodesRepository } from './codes.repository';
import { REDIS } from '../../redis/redis.module';

export type CodePurpose = Schemas['OtpPurpose'];

/** Sign-up and password-reset codes live 10 minutes, deletion codes 300 s. */
export const CODE_TTL_SECONDS: Record<CodePurpose, number> = { signup: 600, deletion: 300, password_reset: 600 };
export const MAX_CODE_ATTEMPTS = 5;
export const VERIFICATION_TOKEN_TTL_SECONDS = 600;

/**
 * E-mailed one-time codes: 6 digits from a CSPRNG, stored only as a keyed hash, bound to e-mail and
 * purpose, single use, at most 5 tries each (counted atomically before any comparison), one live code
 * per address and purpose, and a resend wait.
 */
@Injectable()
export class CodesService {
  private readonly key: Buffer;

  constructor(
    private readonly codes: CodesRepository,
    private readonly transactions: Transactions,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.key = createHmac('sha256', config.jwt.refreshSecret).update('one-time-codes').digest();
  }

  private hash(email: string, purpose: CodePurpose, code: string): Buffer {
    return createHmac('sha256', this.key).update(`${purpose}:${email}:${code}`).digest();
  }

  private redisKey(...parts: string[]): string {
    return [this.config.redis.prefix, ...parts].join(':');
  }

  /**
   * Enforces the limits on sending a code to this address (429 with Retry-After): the resend wait per address
   * and purpose, and the codes sent to the address from this IP. Called for every request, whether or not the
   * address has an account, so the answer never depends on it. Only codes that go out count
   * (`countSent`), so a refused request uses nothing up, and requests from elsewhere cannot lock an owner out.
   */
  async claimSendSlot(email: string, purpose: CodePurpose, ip: string): Promise<void> {
    const { limit, windowSeconds } = this.config.rateLimits.otpSend;
    const sentKey = this.redisKey('otp-sent', ip, email);
    if (Number(await this.redis.get(sentKey)) >= limit) {
      throw new RateLimitedException(Math.max(1, await this.redis.ttl(sentKey)));
    }
    const key = this.redisKey('otp-wait', purpose, email);
    const ok = await this.redis.set(key, '1', 'EX', this.config.otpResendSeconds, 'NX');
    if (!ok) {
      const ttl = Math.max(1, await this.redis.ttl(key));
      throw new RateLimitedException(ttl, `Please wait ${ttl} seconds before requesting another code.`);
    }
    // Counted as soon as the send is allowed; the window starts with the first code.
    await this.redis.multi().incr(sentKey).expire(sentKey, windowSeconds, 'NX').exec();
  }

  /** A new code for the address; any earlier live code for the same purpose stops working. */
  async issue(email: string, purpose: CodePurpose): Promise<string> {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.transactions.run(async (tx) => {
      await this.codes.retire(email, purpose, tx);
      await this.codes.insert(email, purpose, this.hash(email, purpose, code).toString('hex'), MAX_CODE_ATTEMPTS, CODE_TTL_SECONDS[purpose], tx);
    });
    return code;
  }

  /**
   * Checks a code. Each call first takes one of the code's tries in a single conditional UPDATE, so
   * however many guesses arrive at once, at most 5 are ever compared. With `consume`, a right code is
   * used up (exactly once, even under races).
   */
  async check(email: string, purpose: CodePurpose, code: string, opts: { consume: boolean }): Promise<boolean> {
    const hit = await this.codes.takeTry(email, purpose);
    if (!hit) return false;
    const expected = Buffer.from(hit.code_hash, 'hex');
    if (!timingSafeEqual(expected, this.hash(email, purpose, code))) return false;
    if (!opts.consume) return true;
    return this.codes.consume(hit.id);
  }

  /**
   * A right code is used up only once `then` has passed (an account deletion's second factor): a `then` that throws
   * leaves it for another try. One try of the code's allowance, as `check`.
   */
  async checkThenConsume(email: string, purpose: CodePurpose, code: string, then: () => Promise<void>): Promise<boolean> {
    const hit = await this.codes.takeTry(email, purpose);
    if (!hit || !timingSafeEqual(Buffer.from(hit.code_hash, 'hex'), this.hash(email, purpose, code))) return false;
    await then();
    return this.codes.consume(hit.id);
  }

  /**
   * After a sign-up or password-reset code is verified: a short-lived, single-use token bound to the address
   * and purpose, which register (sign-up) or reset-password requires.
   */
  async issueVerificationToken(email: string, purpose: CodePurpose): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(this.verificationKey(token), `${purpose}:${email}`, 'EX', VERIFICATION_TOKEN_TTL_SECONDS);
    return token;
  }

  async verificationTokenMatches(token: string | undefined, email: string, purpose: CodePurpose): Promise<boolean> {
    return !!token && (await this.redis.get(this.verificationKey(token))) === `${purpose}:${email}`;
  }

  /** Uses the token up; false if it was already used or has expired. */
  async consumeVerificationToken(token: string, email: string, purpose: CodePurpose): Promise<boolean> {
    return (await this.redis.getdel(this.verificationKey(token))) === `${purpose}:${email}`;
  }

  /** Every code of an address (its account is being deleted). */
  async removeAll(email: string, tx: Tx): Promise<void> {
    await this.codes.removeAll(email, tx);
  }

  private verificationKey(token: string): string {
    return this.redisKey('verify', createHash('sha256').update(token).digest('hex'));
  }
}
