import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { API_KEY_PREFIX } from '../../auth/api-key.guard';
import { hashSecret, newSecret } from '../../auth/bearer-secret';
import { RateLimiter } from '../../common/rate-limit';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitedException } from '../../contract/errors';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { StopSignals } from '../../jobs/stop-signals';
import { toGlob, toUnits } from '../../common/units';
import { ApiKeyRow, ApiKeysRepository } from './api-keys.repository';

/** Live keys per account. */
export const MAX_API_KEYS = 20;

const describe = (r: ApiKeyRow): Schemas['ApiKey'] => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  daily_limit: r.daily_limit_units === null ? null : toGlob(r.daily_limit_units),
  spent_today: toGlob(r.spent_today_units),
  requests: Number(r.requests),
  tokens: Number(r.tokens),
  spent: toGlob(r.spent_units),
});

/**
 * For ledger:check: every key's counters equal its completed replies (requests, tokens, charges) and the spending
 * their holds settled to, and no key was charged more in a UTC day than its daily limit.
 */
export async function apiKeyProblems(keys: ApiKeysRepository): Promise<string[]> {
  const problems = (await keys.usageMismatches()).map(
    (k) =>
      `api key ${k.id}: counts ${k.requests} requests, ${k.tokens} tokens, ${k.spent_units} units; its replies ${k.task_requests}, ` +
      `${k.task_tokens}, ${k.task_units} units; their settled holds ${k.settled_units} units`,
  );
  for (const d of await keys.overLimitDays())
    problems.push(`api key ${d.id} was charged ${d.units} units on ${d.day}, over its daily limit ${d.daily_limit_units}`);
  return problems;
}

/** A user's API keys: made random and shown once, stored as hashes, listed with their usage, revoked at once. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly transactions: Transactions,
    private readonly stops: StopSignals,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(userId: string): Promise<Schemas['ApiKeyList']> {
    return { api_keys: (await this.keys.listActive(userId)).map(describe) };
  }

  async create(userId: string, body: RequestBody<'createApiKey'>): Promise<Schemas['ApiKeyCreated']> {
    const dailyLimitUnits = typeof body.daily_limit === 'number' ? toUnits(body.daily_limit, 'daily_limit') : null;
    // Counted per account, which only the service knows (the route guards run before the user is authenticated).
    const { limit, windowSeconds } = this.config.rateLimits.apiKeyCreate;
    const retryAfter = await this.limiter.hit('api-key-create', userId, limit, windowSeconds);
    if (retryAfter !== null) throw new RateLimitedException(retryAfter);
    // 24 random bytes: high-entropy, so a plain SHA-256 of it is a safe lookup key (the same as node credentials).
    const key = newSecret(API_KEY_PREFIX);
    const id = await this.transactions.run(async (tx) => {
      if ((await this.keys.countActiveLocked(userId, tx)) >= MAX_API_KEYS) {
        throw new ConflictException(`You already have ${MAX_API_KEYS} API keys. Revoke one before creating another.`);
      }
      return this.keys.insert(
        { userId, name: body.name.trim(), prefix: key.slice(0, API_KEY_PREFIX.length + 6), keyHash: hashSecret(key), dailyLimitUnits },
        tx,
      );
    });
    return { key, api_key: describe((await this.keys.byId(id))!) };
  }

  /** The key stops working now, and its replies still running stop (charged for what they generated). */
  async revoke(userId: string, id: string): Promise<void> {
    if (!(await this.keys.revoke(userId, id))) throw new NotFoundException('API key not found');
    for (const open of await this.keys.openStreams(id)) await this.stops.stop(open.user_id, open.stream_id);
  }
}
