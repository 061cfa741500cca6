import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimiter } from '../../common/rate-limit';
import { RetryLaterException } from '../../contract/errors';
import { ApiKeysRepository, type ApiKeyIdentity } from '../api-keys/api-keys.repository';

export const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
];

/** 429 with Retry-After, for a key past its request or token window. */
class KeyRateLimitedException extends RetryLaterException {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super({ statusCode: HttpStatus.TOO_MANY_REQUESTS, message, error: 'Too Many Requests' }, HttpStatus.TOO_MANY_REQUESTS);
  }
}

/** A duration the way OpenAI's reset headers write it: 250ms, 17s, 1m0s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/**
 * Per-key rate limits in Redis, shared by every API process: requests per window, and prompt + completion tokens
 * per window (a reply's tokens count when it ends; a key whose window is used up waits for the next one).
 */
@Injectable()
export class KeyLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly keys: ApiKeysRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A request made with the key, whatever its operation: counted in the key's request window (the x-ratelimit
   * headers set; 429 when either window is used up), and the key marked as used now.
   */
  async admit(key: ApiKeyIdentity, res: Response): Promise<void> {
    await Promise.all([this.count(key.id, res), this.keys.touch(key.id)]);
  }

  private async count(keyId: string, res: Response): Promise<void> {
    const { apiKeyRequests: requests, apiKeyTokens: tokens } = this.config.rateLimits;
    const [r, t] = await Promise.all([
      this.limiter.add('apikey-requests', keyId, 1, requests.windowSeconds),
      this.limiter.add('apikey-tokens', keyId, 0, tokens.windowSeconds),
    ]);
    res.set({
      'x-ratelimit-limit-requests': String(requests.limit),
      'x-ratelimit-remaining-requests': String(Math.max(0, requests.limit - r.count)),
      'x-ratelimit-reset-requests': duration(r.resetMs),
      'x-ratelimit-limit-tokens': String(tokens.limit),
      'x-ratelimit-remaining-tokens': String(Math.max(0, tokens.limit - t.count)),
      'x-ratelimit-reset-tokens': duration(t.resetMs),
    });
    const window = duration(requests.windowSeconds * 1000);
    if (r.count > requests.limit) {
      throw new KeyRateLimitedException(
        Math.max(1, Math.ceil(r.resetMs / 1000)),
        `Rate limit reached for requests: ${requests.limit} per ${window}. Try again in ${duration(r.resetMs)}.`,
      );
    }
    if (t.count >= tokens.limit) {
      throw new KeyRateLimitedException(
        Math.max(1, Math.ceil(t.resetMs / 1000)),
        `Rate limit reached for tokens: ${tokens.limit} per ${duration(tokens.windowSeconds * 1000)}. Try again in ${duration(t.resetMs)}.`,
      );
    }
  }

  /** Counts a reply's tokens in the key's token window. */
  async spend(keyId: string, tokens: number): Promise<void> {
    if (tokens > 0) await this.limiter.add('apikey-tokens', keyId, tokens, this.config.rateLimits.apiKeyTokens.windowSeconds);
  }
}
