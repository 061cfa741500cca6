import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';

/** Marks the format of a sealed secret, so another key or cipher can be added later beside this one. */
const SEALED_V1 = 'v1:';

const subkey = (key: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));

/**
 * What TWO_FACTOR_KEY protects, each with a key of its own derived from it (HKDF): authenticator secrets are
 * encrypted with AES-256-GCM (bound to their user, so a row copied to another user does not open), and recovery
 * codes are stored as HMAC-SHA-256 keyed hashes. A copy of the database alone reveals neither.
 */
@Injectable()
export class TwoFactorKeys {
  private readonly secretKey: Buffer;
  private readonly recoveryKey: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.secretKey = subkey(config.twoFactorKey, 'glob two-factor: totp secret');
    this.recoveryKey = subkey(config.twoFactorKey, 'glob two-factor: recovery codes');
  }

  seal(userId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.secretKey, iv);
    cipher.setAAD(Buffer.from(userId));
    const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return SEALED_V1 + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
  }

  /** The secret; throws when the row was not sealed for this user under this key. */
  open(userId: string, sealed: string): string {
    if (!sealed.startsWith(SEALED_V1)) throw new Error('Unknown two-factor secret format');
    const raw = Buffer.from(sealed.slice(SEALED_V1.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.secretKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /**
   * A recovery code's stored form. A fast keyed hash rather than argon2: a code holds 50 random bits, so a slow
   * hash adds nothing against guessing online (rate-limited), and the key keeps a stolen database from being
   * searched offline.
   */
  recoveryHash(userId: string, normalizedCode: string): string {
    return createHmac('sha256', this.recoveryKey).update(`${userId}:${normalizedCode}`).digest('hex');
  }
}
