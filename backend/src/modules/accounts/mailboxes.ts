import { Inject, Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Tx } from '../../database/repository';
import { UsersRepository } from './users.repository';

/** Domains where dots in the local part are ignored by the provider (a.b@gmail.com is ab@gmail.com). */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The mailbox an address delivers to, for "one welcome bonus per mailbox": lower-cased; a `+tag` is dropped
 * for every domain (Gmail, Outlook, iCloud, Fastmail, Proton and the common mail servers deliver
 * someone+tag@… to someone@…); for Gmail the dots as well, and googlemail.com is gmail.com.
 */
export function mailboxOf(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (DOTLESS_DOMAINS[domain]) {
    domain = DOTLESS_DOMAINS[domain]!;
    local = local.replace(/\./g, '');
  }
  return `${local}@${domain}`;
}

/**
 * The register of mailboxes that had their welcome bonus, kept as keyed hashes (HMAC-SHA-256 under a key
 * derived from JWT_REFRESH_SECRET) so it survives account deletion without keeping the address itself.
 */
@Injectable()
export class WelcomeBonusClaims {
  private readonly key: Buffer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly users: UsersRepository,
  ) {
    this.key = createHmac('sha256', config.jwt.refreshSecret).update('welcome-bonus-mailboxes').digest();
  }

  private hash(email: string): string {
    return createHmac('sha256', this.key).update(mailboxOf(email)).digest('hex');
  }

  /** Records the mailbox's bonus; true if it never had one (then the caller credits it, in the same transaction). */
  claim(email: string, tx: Tx): Promise<boolean> {
    return this.users.claimBonus(this.hash(email), tx);
  }

  /** Marks the mailbox as served (an account made before this register existed, now deleted). */
  async remember(email: string, tx: Tx): Promise<void> {
    await this.users.claimBonus(this.hash(email), tx);
  }
}
