import constants from '@glob/contract/constants.json';
import {
  ConflictException,
  BadGatewayException,
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import type Redis from 'ioredis';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { OAUTH_PROVIDERS, type AppConfig, type OAuthProviderConfig, type OAuthProviderName } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions } from '../../database/repository';
import { REDIS } from '../../redis/redis.module';
import { AccountsService, MESSAGES, normalizeEmail } from './accounts.service';
import type { SessionClient } from './sessions.repository';
import { UsersRepository } from './users.repository';

export const OAUTH_STATE_TTL_SECONDS = 600;
export const OAUTH_FAILED = 'OAuth login failed';
export const OAUTH_BAD_STATE = 'Invalid or expired OAuth state. Please try signing in again.';
export const OAUTH_OTHER_BROWSER = 'This sign-in was started in another browser. Please sign in again from this one.';
export const OAUTH_NO_EMAIL = 'Your provider account has no verified email address';
export const oauthUnavailable = (provider: string) => `OAuth provider ${provider} is not available`;

interface PendingLogin {
  provider: OAuthProviderName;
  verifier: string;
  /** SHA-256 of the browser nonce: only the browser that started the sign-in can finish it. */
  nonceHash: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();

interface Profile {
  subject: string;
  email: string;
  name: string | null;
}

const isLoopback = (url: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);

/**
 * Google, GitHub and Microsoft sign-in with openid-client: authorization code flow with a random state
 * and a PKCE S256 challenge, both bound server-side (Redis, 10 minutes, single use) and to the starting
 * browser by a nonce that never goes through the provider. The provider's verified e-mail links to an
 * existing verified account, claims an unverified one, or creates one.
 */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger('OAuth');
  private readonly configs = new Map<OAuthProviderName, client.Configuration>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly accounts: AccountsService,
  ) {}

  /** The providers with a configured client, in OAUTH_PROVIDERS order: the only buttons the sign-in page shows. */
  configuredProviders(): { providers: OAuthProviderName[] } {
    return { providers: OAUTH_PROVIDERS.filter((name) => this.config.oauth[name] !== undefined) };
  }

  private provider(name: OAuthProviderName): { settings: OAuthProviderConfig; config: client.Configuration } {
    const settings = this.config.oauth[name];
    if (!settings) throw new NotFoundException(oauthUnavailable(name));
    let config = this.configs.get(name);
    if (!config) {
      config = new client.Configuration(
        {
          issuer: settings.issuer ?? new URL(settings.authorizationUrl).origin,
          authorization_endpoint: settings.authorizationUrl,
          token_endpoint: settings.tokenUrl,
          userinfo_endpoint: settings.userinfoUrl,
        },
        settings.clientId,
        { client_secret: settings.clientSecret },
        client.ClientSecretPost(settings.clientSecret),
      );
      // Plain HTTP only for a provider on this machine (the tests' local OAuth server).
      if ([settings.authorizationUrl, settings.tokenUrl, settings.userinfoUrl].every(isLoopback)) client.allowInsecureRequests(config);
      this.configs.set(name, config);
    }
    return { settings, config };
  }

  redirectUri(name: OAuthProviderName): string {
    return `${this.config.publicWebUrl}/app/oauth/callback/${name}`;
  }

  private stateKey(state: string): string {
    return `${this.config.redis.prefix}:oauth:${createHash('sha256').update(state).digest('hex')}`;
  }

  async authorizationUrl(name: OAuthProviderName): Promise<Schemas['OAuthAuthUrl']> {
    const { settings, config } = this.provider(name);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const browserNonce = randomBytes(24).toString('base64url');
    const pending: PendingLogin = { provider: name, verifier, nonceHash: sha256(browserNonce).toString('hex') };
    await this.redis.set(this.stateKey(state), JSON.stringify(pending), 'EX', OAUTH_STATE_TTL_SECONDS);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(name),
      scope: settings.scope,
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(name === 'google' ? { prompt: 'select_account' } : {}),
    });
    return { authorization_url: url.href, state, browser_nonce: browserNonce };
  }

  async callback(name: OAuthProviderName, input: RequestBody<'oauthCallback'>, from: SessionClient): Promise<Schemas['OAuthResult']> {
    const { code, state } = input;
    const { settings, config } = this.provider(name);
    // The state is used up either way: a replay from the wrong browser also ends the attacker's attempt.
    const raw = await this.redis.getdel(this.stateKey(state));
    const pending = raw ? (JSON.parse(raw) as PendingLogin) : null;
    if (!pending || pending.provider !== name) throw new BadRequestException(OAUTH_BAD_STATE);
    const presented = sha256(input.browser_nonce ?? '');
    if (!timingSafeEqual(presented, Buffer.from(pending.nonceHash, 'hex'))) throw new BadRequestException(OAUTH_OTHER_BROWSER);

    let profile: Profile | null;
    try {
      const current = new URL(this.redirectUri(name));
      current.searchParams.set('code', code);
      current.searchParams.set('state', state);
      const tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: state });
      profile = settings.issuer ? await this.oidcProfile(config, tokens) : await this.githubProfile(config, settings, tokens.access_token);
    } catch (err) {
      this.logger.warn(`${name} sign-in failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new BadGatewayException(OAUTH_FAILED);
    }
    if (!profile) throw new UnprocessableEntityException(OAUTH_NO_EMAIL);
    return this.signIn(name, profile, from);
  }

  private async oidcProfile(
    config: client.Configuration,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<Profile | null> {
    const claims = tokens.claims();
    const info = await client.fetchUserInfo(config, tokens.access_token, claims?.sub ?? client.skipSubjectCheck);
    const email = (info.email ?? claims?.email) as string | undefined;
    const verified = (info.email_verified ?? claims?.email_verified) as boolean | string | undefined;
    if (!email || !(verified === true || verified === 'true')) return null;
    return { subject: info.sub, email, name: (info.name as string | undefined) ?? null };
  }

  private async githubProfile(config: client.Configuration, settings: OAuthProviderConfig, accessToken: string): Promise<Profile | null> {
    const headers = new Headers({ Accept: 'application/vnd.github+json' });
    const userRes = await client.fetchProtectedResource(config, accessToken, new URL(settings.userinfoUrl), 'GET', undefined, headers);
    if (!userRes.ok) throw new Error(`GitHub user endpoint answered ${userRes.status}`);
    const user = (await userRes.json()) as { id: number | string; login?: string; name?: string | null };
    if (!settings.emailsUrl) return null;
    const emailsRes = await client.fetchProtectedResource(config, accessToken, new URL(settings.emailsUrl), 'GET', undefined, headers);
    if (!emailsRes.ok) throw new Error(`GitHub emails endpoint answered ${emailsRes.status}`);
    const emails = (await emailsRes.json()) as Array<{ email: string; primary: boolean; verified: boolean }>;
    const primary = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified);
    return primary ? { subject: String(user.id), email: primary.email, name: user.name ?? user.login ?? null } : null;
  }

  /**
   * The identity's account, else the verified account with this e-mail (linked now), else an unverified
   * account with it (claimed: its password and everything of the squatter go), else a new account. An account
   * with two-factor sign-in gets the challenge of the second step instead of a session.
   */
  private async signIn(provider: OAuthProviderName, profile: Profile, from: SessionClient): Promise<Schemas['OAuthResult']> {
    const email = normalizeEmail(profile.email);
    return this.transactions.run(async (tx) => {
      const identity = await this.users.identity(provider, profile.subject, tx);
      let user = identity ? await this.users.byId(identity.userId, tx) : undefined;
      let isNew = false;
      if (!user || user.deletedAt) {
        user = await this.accounts.findActiveByEmail(email, true, tx);
        if (!user) {
          const username = (profile.name?.trim() || email.split('@')[0]!).slice(0, constants.fieldLimits.User.username.maxLength);
          user = await this.users.insert(email, username, null, tx);
          // Another sign-in made the account between the lookup and the insert.
          if (!user) throw new ConflictException(MESSAGES.emailTaken);
          await this.accounts.openWallet(user.id, email, tx);
          isNew = true;
        } else if (!user.emailVerifiedAt) {
          user = await this.accounts.claimUnverified(user, null, undefined, tx);
        }
        await this.users.link(user.id, provider, profile.subject, email, tx);
      }
      const answer = await this.accounts.sessionOrChallenge(user, from, tx);
      return 'two_factor_required' in answer ? answer : { ...answer, is_new_user: isNew };
    });
  }
}
