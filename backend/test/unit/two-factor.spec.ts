import { generate } from 'otplib';
import { loadConfig } from '../../src/config/config';
import { newRecoveryCodes, normalizeRecoveryCode } from '../../src/modules/security/recovery-codes';
import { TOTP, totpStep } from '../../src/modules/security/totp';
import { TwoFactorKeys } from '../../src/modules/security/two-factor-keys';

/** RFC 6238, appendix B: the SHA-1 seed "12345678901234567890" (here in Base32), times and 8-digit codes. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP as the two-factor service uses it (otplib)', () => {
  it("gives RFC 6238's SHA-1 test vectors with the service's settings but 8 digits", async () => {
    for (const [time, code] of RFC_VECTORS) {
      expect(await generate({ secret: RFC_SECRET, ...TOTP, digits: 8, epoch: time })).toBe(code);
    }
  });

  it('accepts the last 6 digits of each vector at its time, and says which 30-second step it belongs to', async () => {
    for (const [time, code] of RFC_VECTORS) {
      expect(await totpStep(RFC_SECRET, code.slice(-6), time * 1000)).toBe(Math.floor(time / 30));
    }
  });

  it('allows one step of clock drift either way, and no more', async () => {
    const [time, code] = [1234567890, '005924'];
    const step = Math.floor(time / 30);
    expect(await totpStep(RFC_SECRET, code, (time + 30) * 1000)).toBe(step);
    expect(await totpStep(RFC_SECRET, code, (time - 30) * 1000)).toBe(step);
    expect(await totpStep(RFC_SECRET, code, (time + 60) * 1000)).toBeNull();
    expect(await totpStep(RFC_SECRET, code, (time - 60) * 1000)).toBeNull();
    expect(await totpStep(RFC_SECRET, '005925', time * 1000)).toBeNull();
  });
});

describe('two-factor keys', () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/glob', NODE_ENV: 'test' });
  const keys = new TwoFactorKeys(config);
  const user = '0b9f4a2e-6c1d-4f7e-9a51-3d2c8e7b1f60';

  it('seals a secret so that the stored text does not contain it, and opens it only for its user and key', () => {
    const sealed = keys.seal(user, RFC_SECRET);
    expect(sealed).not.toContain(RFC_SECRET);
    expect(sealed).not.toContain(Buffer.from(RFC_SECRET).toString('base64'));
    expect(keys.seal(user, RFC_SECRET)).not.toBe(sealed);
    expect(keys.open(user, sealed)).toBe(RFC_SECRET);
    expect(() => keys.open('7c2e9a41-1b3d-4f6e-8a2c-5d9e0f1b3a75', sealed)).toThrow();
    const otherKey = new TwoFactorKeys(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/glob', NODE_ENV: 'test' }));
    expect(() => otherKey.open(user, sealed)).toThrow();
  });

  it('makes ten distinct readable recovery codes, hashed per user, whatever case or hyphen they are typed with', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[2-9a-km-np-z]{5}-[2-9a-km-np-z]{5}$/);
    const code = codes[0]!;
    const hash = keys.recoveryHash(user, normalizeRecoveryCode(code));
    expect(hash).not.toContain(normalizeRecoveryCode(code));
    expect(keys.recoveryHash(user, normalizeRecoveryCode(code.toUpperCase().replace('-', '')))).toBe(hash);
    expect(keys.recoveryHash('7c2e9a41-1b3d-4f6e-8a2c-5d9e0f1b3a75', normalizeRecoveryCode(code))).not.toBe(hash);
  });
});
