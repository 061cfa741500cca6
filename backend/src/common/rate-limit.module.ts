import { Global, Module } from '@nestjs/common';
import { RateLimiter } from './rate-limit';

/** The rate limiter's counters (Redis), one provider for every room that limits something. */
@Global()
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
