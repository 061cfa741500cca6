import { generateSecret, generateURI, verify } from 'otplib';
import { PRODUCT_NAME } from '../../common/product';

/** RFC 6238 as authenticator apps expect it: HMAC-SHA-1, 6 digits, 30-second steps. */
export const TOTP = { algorithm: 'sha1', digits: 6, period: 30 } as const;

/** Clock drift a code may have: one step before or after the server's current one. */
const DRIFT_STEPS = 1;

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), in Base32. */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

/** The otpauth:// URI an authenticator app scans. */
export const totpUri = (secret: string, account: string): string => generateURI({ issuer: PRODUCT_NAME, label: account, secret, ...TOTP });

/**
 * The time step a code belongs to when it is right within the drift allowed around `atMs`, else null. The step
 * is what replay protection compares: a code of a step already used, or an earlier one, must be refused.
 */
export async function totpStep(secret: string, code: string, atMs = Date.now()): Promise<number | null> {
  const result = await verify({ secret, token: code, ...TOTP, epoch: Math.floor(atMs / 1000), epochTolerance: DRIFT_STEPS * TOTP.period });
  // The functional API answers HOTP and TOTP results alike; a TOTP one carries its time step.
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
