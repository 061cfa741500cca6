// The declarations of index.mjs (see there why the package is plain JavaScript). The implementations are typed with
// these (`@type {typeof import('./index.mjs').name}`), so `tsc -p testing` checks the code against them.
import type { Client } from 'pg';

// --- SMTP -------------------------------------------------------------------------------------------------------------

export interface CaughtMail {
  /** 1 for the first e-mail the catcher received, then 2, 3…: "newer than a mark" is `seq > mark`. */
  seq: number;
  /** The envelope's sender ('' for a null sender). */
  from: string;
  /** The envelope's recipients, lower-cased. */
  to: string[];
  /** The Subject header (read from `text`), '' when there is none. */
  subject: string;
  /** The message as it arrived: headers and body, quoted-printable still encoded. */
  raw: string;
  /** `raw` with quoted-printable soft line breaks and escapes undone: enough to read a code or a link out of it. */
  text: string;
}

export interface SmtpCatcher {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  /** Every e-mail received, oldest first. */
  mails: CaughtMail[];
  /** The first e-mail (oldest first) that matches, waiting for one up to `timeoutMs` (10 s by default). */
  waitFor(predicate: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on loopback, no authentication and no TLS, that keeps every e-mail it receives. */
export function startSmtpCatcher(): Promise<SmtpCatcher>;

// --- OAuth 2 / OpenID Connect -----------------------------------------------------------------------------------------

export type OAuthProvider = 'google' | 'github' | 'microsoft';

/** Who the server signs in: the ID token's and userinfo's claims (GitHub's /user and /user/emails are made of it). */
export interface OAuthProfile {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface OAuthServerOptions {
  /** The providers it stands in for (the OAUTH_<PROVIDER>_* settings in `env`): all three by default. */
  providers?: OAuthProvider[];
  /** Who signs in until `state.profile` is changed. */
  profile?: OAuthProfile;
}

export interface OAuthServer {
  /** http://127.0.0.1:<port>: the issuer of its ID tokens, and the address a browser reaches it at. */
  issuer: string;
  /**
   * The API's settings for each provider: OAUTH_<PROVIDER>_CLIENT_ID (`<provider>-client`), _CLIENT_SECRET (`<provider>-secret`),
   * _AUTHORIZATION_URL, _TOKEN_URL, _USERINFO_URL and _ISSUER (not for GitHub); OAUTH_GITHUB_EMAILS_URL with GitHub.
   */
  env: Record<string, string>;
  /** `profile`: who the next sign-in reports; `failToken`: the token endpoint answers invalid_grant while true. */
  state: { profile: OAuthProfile; failToken: boolean };
  /** Follows an authorization URL as a browser would and answers the code and state it sends back. */
  authorize(authorizationUrl: string): Promise<{ code: string; state: string }>;
  close(): Promise<void>;
}

/**
 * A local OAuth 2 / OpenID Connect server (oauth2-mock-server: real authorize, token with the PKCE check, userinfo and
 * JWKS endpoints) standing in for Google, GitHub and Microsoft, plus GitHub's /user/emails when GitHub is one of them.
 */
export function startOAuthServer(options?: OAuthServerOptions): Promise<OAuthServer>;

// --- PostgreSQL -------------------------------------------------------------------------------------------------------
// `server`: the URL of any database on the PostgreSQL server to use (only its host, port and credentials count); by
// default TEST_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres.

/** The server's URL (as given: its database is whichever the URL names). */
export function serverUrl(server?: string): URL;

/** The URL of database `name` on the server. */
export function databaseUrl(name: string, server?: string): string;

/** A database name of its own: `<prefix>_<time in base 36>_<8 random hex digits>`. */
export function randomName(prefix: string): string;

/** Runs `fn` with a client connected to the server's `postgres` database, closed afterwards. */
export function admin<T>(fn: (client: Client) => Promise<T>, server?: string): Promise<T>;

/**
 * Creates database `name`, empty or as a copy of `template`. A copy that PostgreSQL refuses because another session
 * is using the template (another copy being made at the same moment) is tried again, up to 20 times.
 */
export function createDatabase(name: string, options?: { template?: string; server?: string }): Promise<void>;

/** Drops database `name` if it exists, ending its sessions (WITH (FORCE)). */
export function dropDatabase(name: string, server?: string): Promise<void>;

/** One query on the database at `url` (a connection of its own, closed afterwards): its rows. */
export function query<T = Record<string, unknown>>(url: string, sql: string, params?: unknown[]): Promise<T[]>;

// --- Ports ------------------------------------------------------------------------------------------------------------

/**
 * A TCP port nothing listens on now (the system picks one, then it is let go): on 127.0.0.1, or with `everyInterface`
 * on every interface, for a process that will listen on the wildcard address.
 */
export function freePort(options?: { everyInterface?: boolean }): Promise<number>;
