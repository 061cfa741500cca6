import { HttpException, HttpStatus } from '@nestjs/common';

/** An error that tells the client when to come back (the filter sets Retry-After). */
export abstract class RetryLaterException extends HttpException {
  abstract readonly retryAfterSeconds: number;
}

/** 429: a rate limit was reached. */
export class RateLimitedException extends RetryLaterException {
  constructor(
    readonly retryAfterSeconds: number,
    message?: string,
  ) {
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

/** 503: too much work of one kind is waiting already; shedding it keeps every other request fast. */
export class BusyException extends RetryLaterException {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super({ statusCode: HttpStatus.SERVICE_UNAVAILABLE, message, error: 'Service Unavailable' }, HttpStatus.SERVICE_UNAVAILABLE);
  }
}
