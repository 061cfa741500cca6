import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { AUTH_REQUIRED } from '../../auth/jwt-auth.guard';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { REDIS } from '../../redis/redis.module';
import { UsersRepository } from '../accounts/users.repository';
import { PasskeysRepository, type PasskeyRow } from './passkeys.repository';
import type { PendingSignIn } from './sign-in-challenges';
import { SignInChallenges } from './sign-in-challenges';
import { TWO_FACTOR_MESSAGES, TwoFactorService } from './two-factor.service';

/** What users read when a passkey step fails. */
export const PASSKEY_MESSAGES = {
  failed: 'This passkey could not be verified. Please try again.',
  taken: 'This passkey is already registered.',
  notFound: 'Passkey not found',
  expired: TWO_FACTOR_MESSAGES.expired,
} as const;

/** How long a WebAuthn ceremony's challenge stays usable. */
const CEREMONY_TTL_SECONDS = 300;
const DEFAULT_NAME = 'Passkey';

/** The WebAuthn user handle: the account id's bytes (no e-mail address reaches the authenticator's handle). */
const userHandle = (userId: string) => Buffer.from(userId, 'utf8');

/** An authentication challenge waiting for its answer; `challengeHash` binds it to a two-factor challenge. */
interface PendingAssertion {
  challengeHash?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The challenge a ceremony's answer signed, read from its clientDataJSON (verified against the stored one after). */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}

/**
 * Passkeys through @simplewebauthn/server: registering one (signed in), listing, renaming and removing them, and
 * signing in with one, either without a password (a discoverable credential) or as the second step of a two-factor
 * challenge. Every ceremony's challenge lives in Redis for 5 minutes and is used up by the first answer to it, right
 * or wrong. A signature counter that does not grow (unless the authenticator keeps none) is refused.
 */
@Injectable()
export class PasskeysService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly passkeys: PasskeysRepository,
    private readonly users: UsersRepository,
    private readonly twoFactor: TwoFactorService,
    private readonly challenges: SignInChallenges,
  ) {}

  private registrationKey(userId: string): string {
    return `${this.config.redis.prefix}:webauthn-reg:${userId}`;
  }

  private assertionKey(challenge: string): string {
    return `${this.config.redis.prefix}:webauthn-auth:${sha256(challenge)}`;
  }

  async list(userId: string): Promise<Schemas['PasskeyList']> {
    return { passkeys: (await this.passkeys.listOf(userId)).map(toBody) };
  }

  async registrationOptions(userId: string): Promise<Schemas['PublicKeyCredentialCreationOptions']> {
    const user = await this.users.byId(userId);
    if (!user?.email || user.deletedAt) throw new UnauthorizedException(AUTH_REQUIRED);
    const existing = await this.passkeys.listOf(userId);
    const options = await generateRegistrationOptions({
      rpName: this.config.webauthn.rpName,
      rpID: this.config.webauthn.rpId,
      userName: user.email,
      userDisplayName: user.username ?? user.email,
      userID: userHandle(userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
      // Resident keys let the passkey sign in before the account is known (no e-mail typed).
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    // A newer request replaces the older challenge: only the latest dialog can finish.
    await this.redis.set(this.registrationKey(userId), options.challenge, 'EX', CEREMONY_TTL_SECONDS);
    return options as Schemas['PublicKeyCredentialCreationOptions'];
  }

  async register(userId: string, input: RequestBody<'registerPasskey'>): Promise<Schemas['Passkey']> {
    const expected = await this.redis.getdel(this.registrationKey(userId));
    if (!expected) throw new BadRequestException(PASSKEY_MESSAGES.failed);
    const verified = await verifyRegistrationResponse({
      response: input.response as unknown as RegistrationResponseJSON,
      expectedChallenge: expected,
      expectedOrigin: this.config.webauthn.origins,
      expectedRPID: this.config.webauthn.rpId,
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) throw new BadRequestException(PASSKEY_MESSAGES.failed);
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const added = await this.passkeys.add({
      userId,
      credentialId: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? input.response.response.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name: input.name?.trim() || DEFAULT_NAME,
    });
    if (!added) throw new ConflictException(PASSKEY_MESSAGES.taken);
    return toBody(added);
  }

  async rename(userId: string, id: string, name: string): Promise<Schemas['Passkey']> {
    const row = await this.passkeys.rename(userId, id, name.trim());
    if (!row) throw new NotFoundException(PASSKEY_MESSAGES.notFound);
    return toBody(row);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await this.passkeys.remove(userId, id))) throw new NotFoundException(PASSKEY_MESSAGES.notFound);
  }

  /** Options for a sign-in: any passkey of this site (discoverable), or the two-factor challenge's account's. */
  async authenticationOptions(
    input: RequestBody<'getPasskeyAuthenticationOptions'> | undefined,
  ): Promise<Schemas['PublicKeyCredentialRequestOptions']> {
    const token = input?.challenge_token;
    let allow: PasskeyRow[] = [];
    if (token) {
      const pending = await this.challenges.peek(token);
      if (!pending) throw new UnauthorizedException(PASSKEY_MESSAGES.expired);
      allow = await this.passkeys.listOf(pending.userId);
    }
    const options = await generateAuthenticationOptions({
      rpID: this.config.webauthn.rpId,
      userVerification: 'preferred',
      allowCredentials: allow.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
    });
    const pending: PendingAssertion = token ? { challengeHash: sha256(token) } : {};
    await this.redis.set(this.assertionKey(options.challenge), JSON.stringify(pending), 'EX', CEREMONY_TTL_SECONDS);
    return options as Schemas['PublicKeyCredentialRequestOptions'];
  }

  /**
   * A sign-in with a passkey: the account it belongs to (password-free), or the two-factor challenge it completes
   * (then the passkey must be that account's, and tries count as wrong codes do).
   */
  async signIn(input: RequestBody<'loginPasskey'>, ip: string): Promise<PendingSignIn> {
    const challenge = await this.takeAssertion(input);
    const token = input.challenge_token;
    if (token) return this.twoFactor.passChallengeWith(token, ip, (userId) => this.verify(input, challenge, userId));
    const userId = await this.verify(input, challenge);
    if (!userId) throw new UnauthorizedException(PASSKEY_MESSAGES.failed);
    return { userId };
  }

  /**
   * The second factor of an account deletion proved by e-mail: a passkey of that account, answering options asked with
   * the deletion's challenge (tries count as wrong codes do).
   */
  async passDeletion(token: string, response: RequestBody<'loginPasskey'>['response'], ip: string): Promise<PendingSignIn> {
    const input = { response, challenge_token: token };
    const challenge = await this.takeAssertion(input);
    return this.twoFactor.passChallengeWith(token, ip, (userId) => this.verify(input, challenge, userId), 'deletion');
  }

  /** Uses up the WebAuthn challenge the answer signed: answered once, and only for the purpose its options were asked for. */
  private async takeAssertion(input: RequestBody<'loginPasskey'>): Promise<string> {
    const challenge = signedChallenge(input.response.response.clientDataJSON);
    const raw = challenge ? await this.redis.getdel(this.assertionKey(challenge)) : null;
    if (!challenge || !raw) throw new UnauthorizedException(PASSKEY_MESSAGES.failed);
    const pending = JSON.parse(raw) as PendingAssertion;
    // Options asked for one purpose cannot finish the other.
    if ((pending.challengeHash ?? null) !== (input.challenge_token ? sha256(input.challenge_token) : null)) {
      throw new UnauthorizedException(PASSKEY_MESSAGES.failed);
    }
    return challenge;
  }

  /** The passkey's account when the answer verifies (and, given `userId`, belongs to it); its counter moves on. */
  private async verify(input: RequestBody<'loginPasskey'>, challenge: string, userId?: string): Promise<string | null> {
    const passkey = await this.passkeys.byCredentialId(input.response.id);
    if (!passkey || (userId && passkey.userId !== userId)) return null;
    const handle = input.response.response.userHandle;
    if (handle && handle !== userHandle(passkey.userId).toString('base64url')) return null;
    const verified = await verifyAuthenticationResponse({
      response: input.response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: this.config.webauthn.origins,
      expectedRPID: this.config.webauthn.rpId,
      credential: {
        id: passkey.credentialId,
        publicKey: passkey.publicKey,
        counter: passkey.counter,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) return null;
    const { newCounter, credentialBackedUp } = verified.authenticationInfo;
    // Checked again in the update, so two sign-ins racing with one counter value cannot both pass.
    if (!(await this.passkeys.recordUse(passkey.id, newCounter, credentialBackedUp))) return null;
    return passkey.userId;
  }
}

function toBody(p: PasskeyRow): Schemas['Passkey'] {
  return {
    id: p.id,
    name: p.name,
    created_at: p.createdAt.toISOString(),
    last_used_at: p.lastUsedAt?.toISOString() ?? null,
    device_type: p.deviceType,
    backed_up: p.backedUp,
    transports: p.transports,
  };
}
