import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/glob' };
const TWO_FACTOR_KEY = 'a1'.repeat(32);

describe('config from the environment', () => {
  it('has working defaults for everything but the database', () => {
    const c = loadConfig({ ...base, NODE_ENV: 'test' });
    expect(c.port).toBe(3000);
    expect(c.redis.url).toBe('redis://127.0.0.1:6379');
    expect(c.web.origin).toEqual(['http://localhost:5173']);
    expect(c.mail.smtpUrl).toBeUndefined();
    expect(c.validateResponses).toBe(true);
    expect(c.jwt.accessSecret).toHaveLength(64);
    // The worker's llama.cpp threads: a node's default CPU share (50 %) of this machine's cores, as an agent uses.
    expect(c.inference.threads).toBe(Math.max(1, Math.round(availableParallelism() / 2)));
    expect(loadConfig({ ...base, INFERENCE_THREADS: '3' }).inference.threads).toBe(3);
  });

  it('refuses a missing or malformed database URL and bad numbers, naming each variable', () => {
    expect(() => loadConfig({})).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x/y' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ ...base, REDIS_URL: 'http://localhost' })).toThrow(/REDIS_URL/);
  });

  it('requires the JWT secrets and the two-factor key in production and never invents them there', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' })).toThrow(/JWT_ACCESS_SECRET/);
    const secret = 'x'.repeat(32);
    const jwt = { JWT_ACCESS_SECRET: secret, JWT_REFRESH_SECRET: secret.replace(/x/g, 'y') };
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', ...jwt })).toThrow(/TWO_FACTOR_KEY/);
    const c = loadConfig({ ...base, NODE_ENV: 'production', ...jwt, TWO_FACTOR_KEY: TWO_FACTOR_KEY });
    expect(c.jwt.accessSecret).toBe(secret);
    expect(c.twoFactorKey.toString('hex')).toBe(TWO_FACTOR_KEY);
    expect(c.validateResponses).toBe(false);
  });

  it('reads the two-factor key as 64 hex characters or base64 of 32 bytes, and refuses anything else', () => {
    const key = Buffer.from(TWO_FACTOR_KEY, 'hex');
    expect(loadConfig({ ...base, NODE_ENV: 'test', TWO_FACTOR_KEY: key.toString('base64') }).twoFactorKey).toEqual(key);
    expect(loadConfig({ ...base, NODE_ENV: 'test', TWO_FACTOR_KEY: key.toString('base64url') }).twoFactorKey).toEqual(key);
    for (const bad of ['change-me-two-factor-key', TWO_FACTOR_KEY.slice(2), Buffer.alloc(16).toString('base64')]) {
      expect(() => loadConfig({ ...base, NODE_ENV: 'test', TWO_FACTOR_KEY: bad })).toThrow(/TWO_FACTOR_KEY/);
    }
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).twoFactorKey).toHaveLength(32);
  });

  it('generates development secrets once and keeps them across restarts, readable by the owner only', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'glob-config-')), 'dev-secrets.json');
    const first = loadConfig({ ...base, NODE_ENV: 'development', DEV_SECRETS_FILE: file });
    const second = loadConfig({ ...base, NODE_ENV: 'development', DEV_SECRETS_FILE: file });
    expect(second.jwt).toEqual(first.jwt);
    expect(second.twoFactorKey).toEqual(first.twoFactorKey);
    expect(second.metricsToken).toEqual(first.metricsToken);
    expect(first.metricsToken).toMatch(/^[\w-]{32}$/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      ...first.jwt,
      twoFactorKey: first.twoFactorKey.toString('hex'),
      metricsToken: first.metricsToken,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses placeholder or identical JWT secrets in production', () => {
    const prod = { ...base, NODE_ENV: 'production' };
    expect(() =>
      loadConfig({ ...prod, JWT_ACCESS_SECRET: 'change-me-access-secret-at-least-32-characters', JWT_REFRESH_SECRET: 'y'.repeat(40) }),
    ).toThrow(/placeholder/);
    expect(() => loadConfig({ ...prod, JWT_ACCESS_SECRET: 'x'.repeat(40), JWT_REFRESH_SECRET: 'CHANGEME-refresh-secret-0123456789abcdef' })).toThrow(
      /placeholder/,
    );
    expect(() => loadConfig({ ...prod, JWT_ACCESS_SECRET: 'x'.repeat(40), JWT_REFRESH_SECRET: 'x'.repeat(40) })).toThrow(/must differ/);
    // Development may use anything.
    expect(
      loadConfig({
        ...base,
        NODE_ENV: 'test',
        JWT_ACCESS_SECRET: 'change-me-access-secret-at-least-32-characters',
        JWT_REFRESH_SECRET: 'y'.repeat(40),
      }).jwt.accessSecret,
    ).toMatch(/change-me/);
  });

  it('refuses the placeholder metrics token in production; without one, /metrics is off', () => {
    const prod = { ...base, NODE_ENV: 'production', JWT_ACCESS_SECRET: 'x'.repeat(40), JWT_REFRESH_SECRET: 'y'.repeat(40), TWO_FACTOR_KEY };
    expect(() => loadConfig({ ...prod, METRICS_TOKEN: 'change-me-metrics-token' })).toThrow(/METRICS_TOKEN still holds a placeholder/);
    expect(() => loadConfig({ ...prod, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ ...prod, METRICS_TOKEN: 'z'.repeat(32) }).metricsToken).toBe('z'.repeat(32));
    expect(loadConfig(prod).metricsToken).toBeUndefined();
  });

  it('refuses test-mode payments in production, and has them off unless asked for', () => {
    const secret = 'x'.repeat(32);
    const prod = { ...base, NODE_ENV: 'production', JWT_ACCESS_SECRET: secret, JWT_REFRESH_SECRET: secret.replace(/x/g, 'y'), TWO_FACTOR_KEY };
    expect(() => loadConfig({ ...prod, PAYMENTS_TEST_MODE: 'true' })).toThrow(/PAYMENTS_TEST_MODE/);
    expect(loadConfig(prod).paymentsTestMode).toBe(false);
    expect(
      loadConfig({ ...base, NODE_ENV: 'development', DEV_SECRETS_FILE: join(mkdtempSync(join(tmpdir(), 'glob-config-')), 's.json') })
        .paymentsTestMode,
    ).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'test', PAYMENTS_TEST_MODE: 'true' }).paymentsTestMode).toBe(true);
  });

  it('refuses the load generator (made-up tokens, a bench mode) in production; off unless asked for', () => {
    const secret = 'x'.repeat(32);
    const prod = { ...base, NODE_ENV: 'production', JWT_ACCESS_SECRET: secret, JWT_REFRESH_SECRET: secret.replace(/x/g, 'y'), TWO_FACTOR_KEY };
    expect(() => loadConfig({ ...prod, WORKER_LOAD_TOKENS_PER_SECOND: '10' })).toThrow(/WORKER_LOAD_TOKENS_PER_SECOND is refused in production/);
    expect(loadConfig(prod).inference.loadTokensPerSecond).toBeNull();
    expect(loadConfig({ ...base, NODE_ENV: 'test', WORKER_LOAD_TOKENS_PER_SECOND: '2.5' }).inference.loadTokensPerSecond).toBe(2.5);
  });

  it('believes no proxy by default, so clients cannot choose their own IP', () => {
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'test', TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...base, NODE_ENV: 'test', TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
  });

  it('splits several web origins', () => {
    expect(loadConfig({ ...base, WEB_ORIGIN: 'http://a.test, http://b.test' }).web.origin).toEqual(['http://a.test', 'http://b.test']);
  });
});
