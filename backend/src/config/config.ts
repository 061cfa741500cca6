import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import constants from '@glob/contract/constants.json';
import { threadsFor } from '@glob/engine/threads';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { UNITS_PER_GLOB } from '../common/units';

/** Repository root (backend/src/config → ../../..), also right for backend/dist/config. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  /** How long a request may wait for a free pooled connection under load. */
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt.default(30_000),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /** Prefix for every Redis key and BullMQ queue, so several deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]+$/)
    .default('glob'),
  WEB_ORIGIN: z.string().default('http://localhost:5173'),
  /** Directory of the built web app that `make serve` serves beside /api. */
  WEB_DIST: z.string().optional(),
  JWT_ACCESS_SECRET: z.string().min(32).optional(),
  JWT_REFRESH_SECRET: z.string().min(32).optional(),
  /** Encrypts two-factor secrets and keys recovery-code hashes: 32 random bytes, as 64 hex characters or base64. */
  TWO_FACTOR_KEY: z.string().optional(),
  /** The WebAuthn relying party id (a domain, never an IP address); default: the host of the first WEB_ORIGIN. */
  WEBAUTHN_RP_ID: z.string().optional(),
  /** Origins passkey ceremonies may come from, comma-separated; default: WEB_ORIGIN. */
  WEBAUTHN_ORIGIN: z.string().optional(),
  SMTP_URL: z.string().optional(),
  /**
   * Without SMTP_URL, write each e-mail's text (codes and links included) to the log, as a development run does: for a
   * `make serve` on one's own machine. Refused with SMTP_URL set.
   */
  MAIL_LOG_TEXT: bool.default(false),
  MAIL_FROM: z.string().default('Glob Network <no-reply@globnetwork.io>'),
  SUPPORT_EMAIL: z.email().default('support@globnetwork.io'),
  /**
   * Which proxies' X-Forwarded-For to believe for client IPs (rate limits). Default: none, so a client cannot
   * pick its own IP; behind a load balancer set it to that hop (e.g. `1`, `loopback` or its address).
   */
  TRUST_PROXY: z.string().default('false'),
  /** Validate every response against the spec (on in tests; costs time in production). */
  VALIDATE_RESPONSES: bool.optional(),
  CONTACT_RATE_LIMIT: positiveInt.default(5),
  CONTACT_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  ANALYTICS_RATE_LIMIT: positiveInt.default(60),
  ANALYTICS_RATE_WINDOW_SECONDS: positiveInt.default(60),
  LOGIN_RATE_LIMIT: positiveInt.default(10),
  LOGIN_RATE_WINDOW_SECONDS: positiveInt.default(900),
  /** Sign-ins per IP whatever the e-mail, so one client cannot try many addresses. */
  LOGIN_IP_RATE_LIMIT: positiveInt.default(30),
  LOGIN_IP_RATE_WINDOW_SECONDS: positiveInt.default(900),
  /** Accounts created (and passwords reset) per IP. */
  SIGNUP_RATE_LIMIT: positiveInt.default(10),
  SIGNUP_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  OTP_VERIFY_RATE_LIMIT: positiveInt.default(30),
  OTP_VERIFY_RATE_WINDOW_SECONDS: positiveInt.default(300),
  /** Codes actually sent to one address from one IP. */
  OTP_SEND_RATE_LIMIT: positiveInt.default(5),
  OTP_SEND_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  /** Code requests per IP, whatever the address. */
  OTP_SEND_IP_RATE_LIMIT: positiveInt.default(20),
  OTP_SEND_IP_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  /** Wrong two-factor codes per account, and per IP, over sign-in and the two-factor settings. */
  TWO_FACTOR_RATE_LIMIT: positiveInt.default(5),
  TWO_FACTOR_RATE_WINDOW_SECONDS: positiveInt.default(900),
  TWO_FACTOR_IP_RATE_LIMIT: positiveInt.default(20),
  TWO_FACTOR_IP_RATE_WINDOW_SECONDS: positiveInt.default(900),
  /** Password hashes computed at once (argon2 takes a core each); more wait in a queue of PASSWORD_HASH_QUEUE, beyond it 503. */
  PASSWORD_HASH_CONCURRENCY: positiveInt.optional(),
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).default(32),
  OTP_RESEND_SECONDS: positiveInt.default(60),
  /** Node pairing: join tokens created per account; registrations per IP; node calls per node (generous: heartbeats, long polls, event batches). */
  JOIN_TOKEN_RATE_LIMIT: positiveInt.default(10),
  JOIN_TOKEN_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  NODE_REGISTER_RATE_LIMIT: positiveInt.default(20),
  /** Device codes asked for per IP and hour; polls per IP and minute; lookups and confirmations per account and 15 minutes. */
  DEVICE_CODE_RATE_LIMIT: positiveInt.default(10),
  DEVICE_CODE_POLL_RATE_LIMIT: positiveInt.default(60),
  DEVICE_CODE_LOOKUP_RATE_LIMIT: positiveInt.default(20),
  NODE_REGISTER_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  NODE_RATE_LIMIT: positiveInt.default(1200),
  NODE_RATE_WINDOW_SECONDS: positiveInt.default(60),
  // The catalog and its files, per IP: a pull opens a few ranged requests per file.
  NODE_CATALOG_RATE_LIMIT: positiveInt.default(300),
  NODE_CATALOG_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  /** API keys: keys created per account; and per key, /v1 requests and prompt + completion tokens per window. */
  API_KEY_CREATE_RATE_LIMIT: positiveInt.default(10),
  API_KEY_CREATE_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  API_KEY_REQUESTS_PER_WINDOW: positiveInt.default(120),
  API_KEY_TOKENS_PER_WINDOW: positiveInt.default(200_000),
  API_KEY_RATE_WINDOW_SECONDS: positiveInt.default(60),
  /** Public URL of the web app (OAuth redirect URIs point at its /app/oauth/callback/{provider}); default: the first WEB_ORIGIN. */
  PUBLIC_WEB_URL: z.url().optional(),
  /** The API's own public URL, which node agents call (the pairing command's --api); default: PUBLIC_WEB_URL. */
  PUBLIC_API_URL: z.url().optional(),
  /** The node agent package the API serves to pairing machines (`make pack-node`'s tarball); default: that one, if built. */
  NODE_AGENT_PACKAGE: z.string().min(1).optional(),
  /** The agent's name on the npm registry, once published: the pairing command then runs it from there instead. */
  NODE_AGENT_NPM_NAME: z
    .string()
    .regex(/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(@[0-9A-Za-z.+-]+)?$/, 'an npm package name')
    .optional(),
  /** Where `npm run release:publish` keeps the desktop app's release files (a folder per version), which the API serves. */
  RELEASES_DIR: z.string().default(resolve(REPO_ROOT, '.data', 'releases')),
  WELCOME_BONUS_GLOB: z.coerce.number().min(0).max(1_000_000).default(1000),
  /** Purchases complete without a payment (development and tests only; refused in production). */
  PAYMENTS_TEST_MODE: bool.default(false),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Tests point the Stripe SDK at a local stand-in (e.g. http://127.0.0.1:12111). */
  STRIPE_API_BASE: z.url().optional(),
  /** The model catalog (JSON). Unset: the built-in catalog (the four default models + the generated tiny model). */
  MODEL_CATALOG: z.string().optional(),
  /** Where catalog paths without a directory, and the generated tiny model, live. */
  MODELS_DIR: z.string().default(resolve(REPO_ROOT, '.data', 'models')),
  /** Worker: llama.cpp threads (default: the machine's cores). */
  INFERENCE_THREADS: positiveInt.optional(),
  INFERENCE_GPU: bool.optional(),
  /** Worker: model ids to load (comma-separated); default every catalog model whose file exists. */
  WORKER_MODELS: z.string().optional(),
  /** Worker: the provider account credited for the tasks this node processes. */
  WORKER_OWNER_EMAIL: z.email().optional(),
  WORKER_NAME: z.string().max(100).optional(),
  /** Replies one worker runs at once per model, as sequences of one llama.cpp context; default: as many as the memory allows. */
  WORKER_CONCURRENCY: positiveInt.optional(),
  /** How long a finished stream stays readable (replay, reconnects). */
  STREAM_TTL_SECONDS: positiveInt.default(600),
  /** BullMQ job lock: a worker that stops renewing it (killed) loses the job to another after this long. */
  JOB_LOCK_MS: positiveInt.default(30_000),
  JOB_STALLED_INTERVAL_MS: positiveInt.default(15_000),
  /** How often a worker or node reports in; it counts as live for three beats (see nodeLiveSeconds). */
  HEARTBEAT_SECONDS: positiveInt.default(5),
  /** The longest a reply may run; past it the reaper ends it with TIMEOUT and releases its hold. */
  REPLY_TIMEOUT_SECONDS: positiveInt.default(600),
  /** How often the reaper looks for replies whose job died, stalled or outlived its time. */
  REAPER_INTERVAL_MS: positiveInt.default(5_000),
  /** A remote node's first token must arrive this soon after its claim, or the job goes to another node. */
  NODE_FIRST_TOKEN_SECONDS: positiveInt.default(30),
  /** After the platform stops a remote node's reply, how long it waits for the node's commitment to what it sent. */
  NODE_STOP_COMMIT_SECONDS: positiveInt.default(30),
  /** The oldest node agent version that may take jobs (semver); unset, any version may. */
  NODE_MIN_VERSION: z
    .string()
    .regex(/^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$/, 'a version such as 0.2.0')
    .optional(),
  /** Token events one node may send per second, over all its jobs; past it the job ends as failed. */
  NODE_EVENTS_PER_SECOND: positiveInt.default(2_000),
  /**
   * The share of a node's replies verified by a trusted generator once its probation is over. Verifying a reply costs
   * about a third of generating it (bench/verification.mjs), so 10 % costs the network ~3 %; a liar is caught within
   * ~10 lies on average, and losing every unpaid reward and every reply since its last payout outweighs them.
   */
  SPOT_CHECK_PERCENT: z.coerce.number().min(0).max(100).default(10),
  /** Replies of a new node (and of one back from a suspension) that are all verified before sampling starts. */
  SPOT_CHECK_FIRST: z.coerce.number().int().min(0).max(1000).default(20),
  /** A worker that only replays spot checks (a trusted generator that serves no replies). */
  WORKER_VERIFY_ONLY: bool.default(false),
  /**
   * Benches only: the worker runs no model and writes made-up tokens at this rate per reply (the platform's own cost
   * measured alone, bench/load.mjs). Refused in production, where it would charge for text no model wrote.
   */
  WORKER_LOAD_TOKENS_PER_SECOND: z.coerce.number().positive().optional(),
  /** Event streams one user may have open at once (start and replay), across the API processes. */
  STREAMS_PER_USER: positiveInt.default(20),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  LOG_LEVEL: z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log'),
  /** One JSON object per line (default: what log collectors read), or `pretty` for a terminal (make dev). */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /**
   * Bearer token Prometheus sends to GET /metrics (the API's port, and the worker's WORKER_PORT). Unset, /metrics
   * answers 404: metrics are never public by default. Generated into .data/ for make dev and make serve.
   */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** The worker's own HTTP port for /metrics and its liveness and readiness probes; unset, the worker listens on nothing. */
  WORKER_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Operators: accounts with these e-mail addresses (comma-separated) may open the queue dashboard at /admin/queues. */
  ADMIN_EMAILS: z.string().default(''),
  /** GLOB minted per day into the rewards account, accrued pro rata at each settlement run. */
  REWARD_EMISSION_GLOB_PER_DAY: z.coerce.number().min(0).max(100_000_000).default(10_000),
  /** The percentage of what each task charged that goes to the rewards account. */
  REWARD_SHARE_PERCENT: z.coerce.number().min(0).max(100).default(80),
  /** How long a reward stays pending before it can be paid. */
  REWARD_SETTLEMENT_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(24),
  /** How often the API pays the rewards that are due (one process at a time). */
  REWARD_SETTLE_INTERVAL_MS: positiveInt.default(60_000),
  /** Where development secrets are kept when none are given (created on first run). */
  DEV_SECRETS_FILE: z.string().default(resolve(REPO_ROOT, '.data', 'dev-secrets.json')),
});

export type Env = z.infer<typeof envSchema>;

export const OAUTH_PROVIDERS = ['google', 'github', 'microsoft'] as const;
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

export interface OAuthProviderConfig {
  clientId: string;
  clientSecret: string;
  /** OIDC issuer (google, microsoft); null for plain OAuth 2 (github). */
  issuer: string | null;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** GitHub only: where verified e-mails are listed. */
  emailsUrl: string | null;
  scope: string;
}

/** Public endpoints of each provider; every one can be overridden by env (tests point them at a local server). */
const OAUTH_DEFAULTS: Record<OAuthProviderName, Omit<OAuthProviderConfig, 'clientId' | 'clientSecret'>> = {
  google: {
    issuer: 'https://accounts.google.com',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    emailsUrl: null,
    scope: 'openid email profile',
  },
  github: {
    issuer: null,
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    emailsUrl: 'https://api.github.com/user/emails',
    scope: 'read:user user:email',
  },
  microsoft: {
    issuer: 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0',
    authorizationUrl: 'https://login.microsoftonline.com/consumers/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/consumers/oauth2/v2.0/token',
    userinfoUrl: 'https://graph.microsoft.com/oidc/userinfo',
    emailsUrl: null,
    scope: 'openid email profile',
  },
};

/** OAUTH_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET enable a provider; _ISSUER, _AUTHORIZATION_URL, _TOKEN_URL, _USERINFO_URL, _EMAILS_URL override its endpoints. */
function oauthProviders(source: NodeJS.ProcessEnv): Partial<Record<OAuthProviderName, OAuthProviderConfig>> {
  const out: Partial<Record<OAuthProviderName, OAuthProviderConfig>> = {};
  for (const name of OAUTH_PROVIDERS) {
    const key = (k: string) => source[`OAUTH_${name.toUpperCase()}_${k}`] || undefined;
    const clientId = key('CLIENT_ID');
    if (!clientId) continue;
    const d = OAUTH_DEFAULTS[name];
    out[name] = {
      clientId,
      clientSecret: key('CLIENT_SECRET') ?? '',
      issuer: key('ISSUER') ?? d.issuer,
      authorizationUrl: key('AUTHORIZATION_URL') ?? d.authorizationUrl,
      tokenUrl: key('TOKEN_URL') ?? d.tokenUrl,
      userinfoUrl: key('USERINFO_URL') ?? d.userinfoUrl,
      emailsUrl: key('EMAILS_URL') ?? d.emailsUrl,
      scope: key('SCOPE') ?? d.scope,
    };
  }
  return out;
}

export interface AppConfig {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  database: { url: string; poolSize: number; connectTimeoutMs?: number };
  redis: { url: string; prefix: string };
  web: { origin: string[]; dist: string | undefined };
  jwt: { accessSecret: string; refreshSecret: string };
  /** The 32-byte key two-factor secrets are encrypted with, and queue jobs' contents sealed under (TWO_FACTOR_KEY). */
  twoFactorKey: Buffer;
  mail: { smtpUrl: string | undefined; from: string; supportEmail: string; logText: boolean };
  /** Express's `trust proxy` setting: false (default), true, a hop count, or addresses/subnet names. */
  trustProxy: boolean | number | string;
  validateResponses: boolean;
  rateLimits: {
    contact: { limit: number; windowSeconds: number };
    analytics: { limit: number; windowSeconds: number };
    login: { limit: number; windowSeconds: number };
    otpVerify: { limit: number; windowSeconds: number };
    otpSend: { limit: number; windowSeconds: number };
    loginIp: { limit: number; windowSeconds: number };
    signup: { limit: number; windowSeconds: number };
    otpSendIp: { limit: number; windowSeconds: number };
    joinToken: { limit: number; windowSeconds: number };
    nodeRegister: { limit: number; windowSeconds: number };
    deviceCode: { limit: number; windowSeconds: number };
    deviceCodePoll: { limit: number; windowSeconds: number };
    deviceCodeLookup: { limit: number; windowSeconds: number };
    node: { limit: number; windowSeconds: number };
    nodeCatalog: { limit: number; windowSeconds: number };
    apiKeyCreate: { limit: number; windowSeconds: number };
    apiKeyRequests: { limit: number; windowSeconds: number };
    apiKeyTokens: { limit: number; windowSeconds: number };
    twoFactor: { limit: number; windowSeconds: number };
    twoFactorIp: { limit: number; windowSeconds: number };
  };
  passwordHashing: { concurrency: number; queue: number };
  paymentsTestMode: boolean;
  otpResendSeconds: number;
  /** Credited once to every new account, in milli-GLOB. */
  welcomeBonusUnits: number;
  stripe: { secretKey: string; webhookSecret: string | undefined; apiBase: string | undefined } | null;
  inference: {
    catalogPath: string | undefined;
    modelsDir: string;
    threads: number;
    gpu: boolean;
    workerModels: string[] | null;
    workerOwnerEmail: string | undefined;
    workerName: string;
    /** Replies at once per model; undefined: sized from memory (see LlamaEngine's sequences). */
    concurrency: number | undefined;
    streamTtlSeconds: number;
    jobLockMs: number;
    jobStalledIntervalMs: number;
    heartbeatSeconds: number;
    /** A node is live while its last heartbeat is younger than this: the one definition of "live". */
    nodeLiveSeconds: number;
    replyTimeoutSeconds: number;
    reaperIntervalMs: number;
    streamsPerUser: number;
    nodeFirstTokenMs: number;
    nodeStopCommitMs: number;
    /** The oldest agent version that may take jobs; null for none. */
    nodeMinVersion: string | null;
    nodeEventsPerSecond: number;
    spotCheckPercent: number;
    spotCheckFirst: number;
    workerVerifyOnly: boolean;
    /** Benches only: made-up tokens per second per reply instead of a model (WORKER_LOAD_TOKENS_PER_SECOND). */
    loadTokensPerSecond: number | null;
  };
  rewards: {
    /** Emission in milli-GLOB per day. */
    emissionUnitsPerDay: number;
    sharePercent: number;
    settlementMs: number;
    settleIntervalMs: number;
  };
  publicWebUrl: string;
  /** The API's public URL (node agents call it). */
  publicApiUrl: string;
  nodeAgent: { packagePath: string | null; npmName: string | null };
  /** The desktop app's release files, RELEASES_DIR/<version>/<name>. */
  releasesDir: string;
  /** Passkeys: the relying party's id, name and the origins whose ceremonies are accepted. */
  webauthn: { rpId: string; rpName: string; origins: string[] };
  oauth: Partial<Record<OAuthProviderName, OAuthProviderConfig>>;
  shutdownTimeoutMs: number;
  logLevel: Env['LOG_LEVEL'];
  logFormat: Env['LOG_FORMAT'];
  /** GET /metrics answers only this bearer token; undefined: 404. */
  metricsToken: string | undefined;
  /** The worker's HTTP port (metrics and probes); undefined: none. */
  workerPort: number | undefined;
  /** Lower-cased e-mail addresses of the operators (the admin role). */
  adminEmails: string[];
}

export class ConfigError extends Error {}

/** Placeholders of .env.example and of earlier compose files: anyone who read them could sign tokens. */
const PLACEHOLDER_SECRET = /change-?me/i;

function assertProductionSecrets(access: string, refresh: string): void {
  if (PLACEHOLDER_SECRET.test(access) || PLACEHOLDER_SECRET.test(refresh)) {
    throw new ConfigError('JWT_ACCESS_SECRET and JWT_REFRESH_SECRET still hold placeholder values ("change-me"): set random secrets in production');
  }
  if (access === refresh) throw new ConfigError('JWT_ACCESS_SECRET and JWT_REFRESH_SECRET must differ');
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
/** 32 bytes in base64 (or base64url), padded or not. */
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

const originList = (value: string) =>
  value
    .split(',')
    .map((o) => o.trim().replace(/\/$/, ''))
    .filter(Boolean);

function webauthnConfig(env: Env): AppConfig['webauthn'] {
  const origins = originList(env.WEBAUTHN_ORIGIN ?? env.WEB_ORIGIN);
  if (origins.length === 0) throw new ConfigError('WEBAUTHN_ORIGIN (or WEB_ORIGIN) must name at least one origin');
  const rpId = env.WEBAUTHN_RP_ID?.trim() || new URL(origins[0]!).hostname;
  return { rpId, rpName: 'Glob Network', origins };
}

/** TWO_FACTOR_KEY as its 32 bytes. */
function parseTwoFactorKey(value: string): Buffer {
  if (HEX_KEY.test(value)) return Buffer.from(value, 'hex');
  if (BASE64_KEY.test(value)) return Buffer.from(value, 'base64');
  throw new ConfigError('TWO_FACTOR_KEY must be 32 random bytes, written as 64 hex characters or in base64');
}

interface Secrets {
  jwt: AppConfig['jwt'];
  twoFactorKey: Buffer;
  metricsToken: string | undefined;
}

/** What .data/dev-secrets.json holds. */
interface StoredSecrets {
  accessSecret?: string;
  refreshSecret?: string;
  /** Hex. */
  twoFactorKey?: string;
  metricsToken?: string;
}

/**
 * Secrets come only from the environment. In development and test, missing ones are generated once
 * and kept in .data/dev-secrets.json so sessions survive a restart; production refuses to start without them.
 */
function resolveSecrets(env: Env): Secrets {
  const givenKey = env.TWO_FACTOR_KEY ? parseTwoFactorKey(env.TWO_FACTOR_KEY) : undefined;
  if (env.NODE_ENV === 'production') {
    if (!env.JWT_ACCESS_SECRET || !env.JWT_REFRESH_SECRET) {
      throw new ConfigError('JWT_ACCESS_SECRET and JWT_REFRESH_SECRET (32+ characters each) are required in production');
    }
    assertProductionSecrets(env.JWT_ACCESS_SECRET, env.JWT_REFRESH_SECRET);
    // Two-factor secrets encrypted under a key that changes with every start could never be read again.
    if (!givenKey) throw new ConfigError('TWO_FACTOR_KEY (32 random bytes as 64 hex characters) is required in production');
    // Anyone who read .env.example could read the metrics (request volumes, nodes, GLOB flow).
    if (env.METRICS_TOKEN && PLACEHOLDER_SECRET.test(env.METRICS_TOKEN)) {
      throw new ConfigError('METRICS_TOKEN still holds a placeholder value ("change-me"): set a random token, or leave it unset');
    }
    return {
      jwt: { accessSecret: env.JWT_ACCESS_SECRET, refreshSecret: env.JWT_REFRESH_SECRET },
      twoFactorKey: givenKey,
      metricsToken: env.METRICS_TOKEN,
    };
  }
  if (env.NODE_ENV === 'test') {
    return {
      jwt: {
        accessSecret: env.JWT_ACCESS_SECRET ?? randomBytes(32).toString('hex'),
        refreshSecret: env.JWT_REFRESH_SECRET ?? randomBytes(32).toString('hex'),
      },
      twoFactorKey: givenKey ?? randomBytes(32),
      metricsToken: env.METRICS_TOKEN,
    };
  }
  const file = env.DEV_SECRETS_FILE;
  let stored: StoredSecrets = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets;
  const secrets: Required<StoredSecrets> = {
    accessSecret: env.JWT_ACCESS_SECRET ?? stored.accessSecret ?? randomBytes(32).toString('hex'),
    refreshSecret: env.JWT_REFRESH_SECRET ?? stored.refreshSecret ?? randomBytes(32).toString('hex'),
    twoFactorKey: givenKey?.toString('hex') ?? stored.twoFactorKey ?? randomBytes(32).toString('hex'),
    metricsToken: env.METRICS_TOKEN ?? stored.metricsToken ?? randomBytes(24).toString('base64url'),
  };
  if (
    stored.accessSecret !== secrets.accessSecret ||
    stored.refreshSecret !== secrets.refreshSecret ||
    stored.twoFactorKey !== secrets.twoFactorKey ||
    stored.metricsToken !== secrets.metricsToken
  ) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return {
    jwt: { accessSecret: secrets.accessSecret, refreshSecret: secrets.refreshSecret },
    twoFactorKey: parseTwoFactorKey(secrets.twoFactorKey),
    metricsToken: secrets.metricsToken,
  };
}

/** Where the model catalog and its files are: all that tools on the API's host (`npm run model:pull`) need. */
export function catalogLocation(source: NodeJS.ProcessEnv = process.env): { catalogPath: string | undefined; modelsDir: string } {
  const env = envSchema.pick({ MODEL_CATALOG: true, MODELS_DIR: true }).parse(source);
  return { catalogPath: env.MODEL_CATALOG ? resolve(env.MODEL_CATALOG) : undefined, modelsDir: resolve(env.MODELS_DIR) };
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  if (env.MAIL_LOG_TEXT && env.SMTP_URL) {
    throw new ConfigError('MAIL_LOG_TEXT=true is refused with SMTP_URL set: e-mails are sent, and their codes never logged');
  }
  if (env.NODE_ENV === 'production' && env.WORKER_LOAD_TOKENS_PER_SECOND !== undefined) {
    throw new ConfigError('WORKER_LOAD_TOKENS_PER_SECOND is refused in production: the worker would charge for text no model wrote');
  }
  if (env.NODE_ENV === 'production' && env.PAYMENTS_TEST_MODE) {
    throw new ConfigError('PAYMENTS_TEST_MODE=true is refused in production: purchases would credit GLOB without a payment');
  }
  const secrets = resolveSecrets(env);
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    database: { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS },
    redis: { url: env.REDIS_URL, prefix: env.REDIS_PREFIX },
    web: {
      origin: env.WEB_ORIGIN.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      dist: env.WEB_DIST ? resolve(env.WEB_DIST) : undefined,
    },
    jwt: secrets.jwt,
    twoFactorKey: secrets.twoFactorKey,
    mail: { smtpUrl: env.SMTP_URL || undefined, from: env.MAIL_FROM, supportEmail: env.SUPPORT_EMAIL, logText: env.MAIL_LOG_TEXT },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    validateResponses: env.VALIDATE_RESPONSES ?? env.NODE_ENV === 'test',
    rateLimits: {
      contact: { limit: env.CONTACT_RATE_LIMIT, windowSeconds: env.CONTACT_RATE_WINDOW_SECONDS },
      analytics: { limit: env.ANALYTICS_RATE_LIMIT, windowSeconds: env.ANALYTICS_RATE_WINDOW_SECONDS },
      login: { limit: env.LOGIN_RATE_LIMIT, windowSeconds: env.LOGIN_RATE_WINDOW_SECONDS },
      otpVerify: { limit: env.OTP_VERIFY_RATE_LIMIT, windowSeconds: env.OTP_VERIFY_RATE_WINDOW_SECONDS },
      otpSend: { limit: env.OTP_SEND_RATE_LIMIT, windowSeconds: env.OTP_SEND_RATE_WINDOW_SECONDS },
      loginIp: { limit: env.LOGIN_IP_RATE_LIMIT, windowSeconds: env.LOGIN_IP_RATE_WINDOW_SECONDS },
      signup: { limit: env.SIGNUP_RATE_LIMIT, windowSeconds: env.SIGNUP_RATE_WINDOW_SECONDS },
      otpSendIp: { limit: env.OTP_SEND_IP_RATE_LIMIT, windowSeconds: env.OTP_SEND_IP_RATE_WINDOW_SECONDS },
      joinToken: { limit: env.JOIN_TOKEN_RATE_LIMIT, windowSeconds: env.JOIN_TOKEN_RATE_WINDOW_SECONDS },
      nodeRegister: { limit: env.NODE_REGISTER_RATE_LIMIT, windowSeconds: env.NODE_REGISTER_RATE_WINDOW_SECONDS },
      deviceCode: { limit: env.DEVICE_CODE_RATE_LIMIT, windowSeconds: 3600 },
      deviceCodePoll: { limit: env.DEVICE_CODE_POLL_RATE_LIMIT, windowSeconds: 60 },
      deviceCodeLookup: { limit: env.DEVICE_CODE_LOOKUP_RATE_LIMIT, windowSeconds: 900 },
      node: { limit: env.NODE_RATE_LIMIT, windowSeconds: env.NODE_RATE_WINDOW_SECONDS },
      nodeCatalog: { limit: env.NODE_CATALOG_RATE_LIMIT, windowSeconds: env.NODE_CATALOG_RATE_WINDOW_SECONDS },
      apiKeyCreate: { limit: env.API_KEY_CREATE_RATE_LIMIT, windowSeconds: env.API_KEY_CREATE_RATE_WINDOW_SECONDS },
      apiKeyRequests: { limit: env.API_KEY_REQUESTS_PER_WINDOW, windowSeconds: env.API_KEY_RATE_WINDOW_SECONDS },
      apiKeyTokens: { limit: env.API_KEY_TOKENS_PER_WINDOW, windowSeconds: env.API_KEY_RATE_WINDOW_SECONDS },
      twoFactor: { limit: env.TWO_FACTOR_RATE_LIMIT, windowSeconds: env.TWO_FACTOR_RATE_WINDOW_SECONDS },
      twoFactorIp: { limit: env.TWO_FACTOR_IP_RATE_LIMIT, windowSeconds: env.TWO_FACTOR_IP_RATE_WINDOW_SECONDS },
    },
    // One core stays free for everything else: argon2 would otherwise take them all during a sign-in flood.
    passwordHashing: { concurrency: env.PASSWORD_HASH_CONCURRENCY ?? Math.max(1, availableParallelism() - 1), queue: env.PASSWORD_HASH_QUEUE },
    paymentsTestMode: env.PAYMENTS_TEST_MODE,
    otpResendSeconds: env.OTP_RESEND_SECONDS,
    welcomeBonusUnits: Math.round(env.WELCOME_BONUS_GLOB * UNITS_PER_GLOB),
    stripe: env.STRIPE_SECRET_KEY
      ? { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined, apiBase: env.STRIPE_API_BASE }
      : null,
    publicWebUrl: (env.PUBLIC_WEB_URL ?? env.WEB_ORIGIN.split(',')[0]!.trim()).replace(/\/$/, ''),
    publicApiUrl: (env.PUBLIC_API_URL ?? env.PUBLIC_WEB_URL ?? env.WEB_ORIGIN.split(',')[0]!.trim()).replace(/\/$/, ''),
    nodeAgent: { packagePath: env.NODE_AGENT_PACKAGE ?? null, npmName: env.NODE_AGENT_NPM_NAME ?? null },
    releasesDir: resolve(env.RELEASES_DIR),
    webauthn: webauthnConfig(env),
    oauth: oauthProviders(source),
    inference: {
      ...catalogLocation(source),
      // The share of the cores a node uses by default (its CPU allocation's default), measured the same way.
      threads: env.INFERENCE_THREADS ?? threadsFor(availableParallelism(), constants.nodeAllocation.cpu_percent.default),
      gpu: env.INFERENCE_GPU ?? false,
      workerModels: env.WORKER_MODELS
        ? env.WORKER_MODELS.split(',')
            .map((m) => m.trim())
            .filter(Boolean)
        : null,
      workerOwnerEmail: env.WORKER_OWNER_EMAIL,
      workerName: env.WORKER_NAME ?? `${hostname()}-${process.pid}`,
      concurrency: env.WORKER_CONCURRENCY,
      streamTtlSeconds: env.STREAM_TTL_SECONDS,
      jobLockMs: env.JOB_LOCK_MS,
      jobStalledIntervalMs: env.JOB_STALLED_INTERVAL_MS,
      heartbeatSeconds: env.HEARTBEAT_SECONDS,
      nodeLiveSeconds: env.HEARTBEAT_SECONDS * 3,
      replyTimeoutSeconds: env.REPLY_TIMEOUT_SECONDS,
      reaperIntervalMs: env.REAPER_INTERVAL_MS,
      streamsPerUser: env.STREAMS_PER_USER,
      nodeFirstTokenMs: env.NODE_FIRST_TOKEN_SECONDS * 1000,
      nodeStopCommitMs: env.NODE_STOP_COMMIT_SECONDS * 1000,
      nodeMinVersion: env.NODE_MIN_VERSION ?? null,
      nodeEventsPerSecond: env.NODE_EVENTS_PER_SECOND,
      spotCheckPercent: env.SPOT_CHECK_PERCENT,
      spotCheckFirst: env.SPOT_CHECK_FIRST,
      workerVerifyOnly: env.WORKER_VERIFY_ONLY,
      loadTokensPerSecond: env.WORKER_LOAD_TOKENS_PER_SECOND ?? null,
    },
    rewards: {
      emissionUnitsPerDay: Math.round(env.REWARD_EMISSION_GLOB_PER_DAY * UNITS_PER_GLOB),
      sharePercent: env.REWARD_SHARE_PERCENT,
      settlementMs: Math.round(env.REWARD_SETTLEMENT_HOURS * 3_600_000),
      settleIntervalMs: env.REWARD_SETTLE_INTERVAL_MS,
    },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    metricsToken: secrets.metricsToken,
    workerPort: env.WORKER_PORT,
    adminEmails: env.ADMIN_EMAILS.split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
  };
}
