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

/**
 * Answer of an operation that is in the spec but not live yet (501 with the Error body).
 * Each later issue replaces these calls with the real service call and removes the 501 from the spec.
 */
export function notYetAvailable(): never {
  throw new HttpException(
    { statusCode: HttpStatus.NOT_IMPLEMENTED, message: 'This operation is not available yet', error: 'Not Implemented' },
    HttpStatus.NOT_IMPLEMENTED,
  );
}
