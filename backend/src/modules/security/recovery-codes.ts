import { randomInt } from 'node:crypto';

/** How many recovery codes an account gets at a time. */
export const RECOVERY_CODE_COUNT = 10;

/** 32 characters that are hard to mix up when read or typed: no 0, 1, l or o. */
const ALPHABET = '23456789abcdefghijkmnpqrstuvwxyz';
const HALF = 5;

function half(): string {
  let out = '';
  for (let i = 0; i < HALF; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Ten new codes, `xxxxx-xxxxx` (50 random bits each). */
export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, () => `${half()}-${half()}`);

/** A code as typed (either case, hyphen or not) in the form that is hashed. */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[^a-z0-9]/g, '');
