import { HttpException, HttpStatus } from '@nestjs/common';

/** 429 that also tells the client when to come back (the filter sets Retry-After). */
export class RateLimitedException extends HttpException {
  constructor(readonly retryAfterSeconds: number, message?: string) {
    super(
      {
        statusCode: HttpStatus.TOO_MANY_REQUESTS,
        message: message ?? `Too many requests. Please try again in ${retryAfterSeconds} seconds.`,
        error: 'Too Many Requests',
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}
