import { Inject, Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { rowsOf } from '../../database/sql';

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

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = createHmac('sha256', config.jwt.refreshSecret).update('welcome-bonus-mailboxes').digest();
  }

  private hash(email: string): string {
    return createHmac('sha256', this.key).update(mailboxOf(email)).digest('hex');
  }

  /** Records the mailbox's bonus; true if it never had one (then the caller credits it, in the same transaction). */
  async claim(em: EntityManager, email: string): Promise<boolean> {
    const rows = rowsOf(
      await em.query(`INSERT INTO welcome_bonus_claims (mailbox_hash) VALUES ($1) ON CONFLICT DO NOTHING RETURNING mailbox_hash`, [this.hash(email)]),
    );
    return rows.length === 1;
  }

  /** Marks the mailbox as served (an account made before this register existed, now deleted). */
  async remember(em: EntityManager, email: string): Promise<void> {
    await em.query(`INSERT INTO welcome_bonus_claims (mailbox_hash) VALUES ($1) ON CONFLICT DO NOTHING`, [this.hash(email)]);
  }
}
