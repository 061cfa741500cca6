import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { RateLimitedException } from '../contract/errors';
import { REDIS } from '../redis/redis.module';

export interface RateLimitRule {
  /** Names the counter, e.g. 'contact'. */
  name: string;
  /** Limit and window, read from config so operators and tests can tune them. */
  limit: (config: AppConfig) => { limit: number; windowSeconds: number };
  /** What is counted: by default the client IP. */
  key?: (req: Request) => string;
}

const RATE_LIMIT = Symbol('RATE_LIMIT');

/** The client a request is counted against: its IP as Express sees it (TRUST_PROXY decides whether X-Forwarded-For counts). */
export const clientIp = (req: Request) => req.ip ?? 'unknown';

/** Marks a route as rate-limited; the RateLimitGuard enforces it with counters shared in Redis. */
export const RateLimit = (...rules: RateLimitRule[]) => SetMetadata(RATE_LIMIT, rules);

/**
 * Lua for a fixed window: INCRBY, the expiry set on the first hit; leaves the locals `count` and `ttl` (ms left). Its
 * arguments are Lua expressions (a key, the window in ms, the amount), so other scripts count in the same windows.
 */
export const fixedWindowLua = (key: string, windowMs: string, amount: string) => `
local count = redis.call('INCRBY', ${key}, ${amount})
if count == 1 then redis.call('PEXPIRE', ${key}, ${windowMs}) end
local ttl = redis.call('PTTL', ${key})
if ttl < 0 then redis.call('PEXPIRE', ${key}, ${windowMs}); ttl = tonumber(${windowMs}) end
`;

const HIT_SCRIPT = `${fixedWindowLua('KEYS[1]', 'ARGV[1]', 'ARGV[2] or 1')}
return {count, ttl}
`;

// Gives one hit back without touching the window's expiry (a counter that is gone stays gone).
const GIVE_BACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('DECR', KEYS[1])
`;

@Injectable()
export class RateLimiter {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The Redis key of a counter (for a script that counts in it beside other work). */
  key(name: string, key: string): string {
    return `${this.config.redis.prefix}:rl:${name}:${key}`;
  }

  /** Counts one hit; returns the seconds to wait when the limit is exceeded, else null. */
  async hit(name: string, key: string, limit: number, windowSeconds: number): Promise<number | null> {
    const redisKey = this.key(name, key);
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, redisKey, String(windowSeconds * 1000))) as [number, number];
    return count > limit ? Math.max(1, Math.ceil(ttl / 1000)) : null;
  }

  /** Adds `amount` (0 only reads) to a fixed window's counter; returns the count and the milliseconds until it resets. */
  async add(name: string, key: string, amount: number, windowSeconds: number): Promise<{ count: number; resetMs: number }> {
    const redisKey = this.key(name, key);
    const [count, resetMs] = (await this.redis.eval(HIT_SCRIPT, 1, redisKey, String(windowSeconds * 1000), String(amount))) as [number, number];
    return { count, resetMs };
  }

  /** Takes back one hit counted by `add` (a try that turned out right), leaving the window's end as it was. */
  async giveBack(name: string, key: string): Promise<void> {
    await this.redis.eval(GIVE_BACK_SCRIPT, 1, this.key(name, key));
  }
}

@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rules = this.reflector.get<RateLimitRule[] | undefined>(RATE_LIMIT, context.getHandler());
    if (!rules?.length) return true;
    const req = context.switchToHttp().getRequest<Request>();
    for (const rule of rules) {
      const { limit, windowSeconds } = rule.limit(this.config);
      const key = rule.key ? rule.key(req) : clientIp(req);
      const retryAfter = await this.limiter.hit(rule.name, key, limit, windowSeconds);
      if (retryAfter !== null) throw new RateLimitedException(retryAfter);
    }
    return true;
  }
}
