import { Inject, Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { BusyException } from '../../contract/errors';
import { COMMON_PASSWORDS } from './common-passwords';

/** argon2id with the OWASP minimum: 19 MiB, 2 iterations, parallelism 1. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;
export const PASSWORDS_BUSY = 'Too many sign-in attempts right now. Please try again in a moment.';

/**
 * A counting semaphore with a bounded queue. Written here because the maintained ones (p-limit and
 * friends) ship as ES modules only, and this needs to refuse work when the queue is full, which they don't.
 */
export class BoundedSemaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** Runs `task` when a slot is free; false (and nothing run) when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) return { ok: false };
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return { ok: true, value: await task() };
    } finally {
      // Hand the slot straight to the next waiter, so `running` never dips and lets a newcomer jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * Password hashing and checking with argon2id, at most `concurrency` at once (one core stays free for
 * every other request); a flood beyond the queue gets 503 at once instead of starving the process.
 * An unknown account is checked against a dummy hash, so a failed sign-in costs the same either way.
 */
@Injectable()
export class PasswordsService {
  private readonly gate: BoundedSemaphore;
  private dummyHash: Promise<string> | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.gate = new BoundedSemaphore(config.passwordHashing.concurrency, config.passwordHashing.queue);
  }

  private async gated<T>(task: () => Promise<T>): Promise<T> {
    const result = await this.gate.run(task);
    if (!result.ok) throw new BusyException(1, PASSWORDS_BUSY);
    return result.value;
  }

  hash(password: string): Promise<string> {
    return this.gated(() => argon2.hash(password, ARGON2_OPTIONS));
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    this.dummyHash ??= argon2.hash('not-a-real-password-only-for-timing', ARGON2_OPTIONS);
    const against = hash ?? (await this.dummyHash);
    const ok = await this.gated(() => argon2.verify(against, password).catch(() => false));
    return hash !== null && ok;
  }
}

let common: Set<string> | undefined;

/** True for the 1,000 most common passwords that our length rule would otherwise accept (case-insensitive). */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(COMMON_PASSWORDS);
  return common.has(password.toLowerCase());
}
