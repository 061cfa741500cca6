import { BadRequestException, ConflictException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { AUTH_REQUIRED } from '../../auth/jwt-auth.guard';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { Transactions, type Tx } from '../../database/repository';
import { MailService } from '../../mail/mail.service';
import { UsersRepository } from '../accounts/users.repository';
import { PRODUCT_NAME } from '../../common/product';
import { recoveryCodeUsedEmail, totpDisabledEmail, totpEnabledEmail } from './emails';
import { newRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes';
import { CHALLENGE_TTL_SECONDS, PendingSignIn, SignInChallenges } from './sign-in-challenges';
import { newTotpSecret, TOTP, totpStep, totpUri } from './totp';
import { TwoFactorKeys } from './two-factor-keys';
import { PasskeysRepository } from './passkeys.repository';
import { TwoFactorRepository, type TwoFactorRow } from './two-factor.repository';
import { WrongCodeLimits } from './wrong-code-limits';

/** What users read when a two-factor step fails. */
export const TWO_FACTOR_MESSAGES = {
  setupWhileOn: 'Two-factor sign-in is already on. Turn it off before setting up another authenticator.',
  alreadyOn: 'Two-factor sign-in is already on.',
  noSetup: 'Start the two-factor setup first.',
  off: 'Two-factor sign-in is off.',
  wrongCode: 'Invalid authentication code. Please try again.',
  usedCode: 'This code has already been used. Please wait for the next one.',
  wrongRecoveryCode: 'Invalid or already used recovery code.',
  expired: 'This sign-in has expired. Please sign in again.',
  deletionExpired: 'This confirmation has expired. Please verify your e-mail code again.',
  deletionNeedsSecondFactor: 'This account has two-factor sign-in: confirm with your authenticator app, a recovery code or a passkey.',
  wrongPasskey: 'This passkey could not be verified. Please try again.',
} as const;

/** What a challenge completes: a sign-in, or an account deletion. */
type ChallengePurpose = PendingSignIn['purpose'];

/** A code of the authenticator app, or a recovery code: the validator lets exactly one through. */
type Proof = Schemas['TwoFactorProof'];
type Verdict = 'ok' | 'wrongCode' | 'usedCode' | 'wrongRecoveryCode';

/**
 * Two-factor sign-in with an authenticator app (TOTP, RFC 6238, through otplib) and recovery codes: setting it up
 * (a pending secret confirmed by a first code), turning it off, new recovery codes, and the second step of a sign-in.
 * A code is accepted once (the last accepted time step is kept; the same or an earlier step is refused). Every
 * check is admitted by WrongCodeLimits first (per IP, per challenge, the account's spacing), so parallel guesses
 * cannot get past them; a right code gives its IP try back and starts the account afresh.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly factors: TwoFactorRepository,
    private readonly passkeys: PasskeysRepository,
    private readonly users: UsersRepository,
    private readonly keys: TwoFactorKeys,
    private readonly challenges: SignInChallenges,
    private readonly limits: WrongCodeLimits,
    private readonly mail: MailService,
  ) {}

  async status(userId: string): Promise<Schemas['TwoFactorStatus']> {
    const row = await this.factors.byUser(userId, false);
    const on = !!row?.enabledAt;
    return {
      totp_enabled: on,
      enabled_at: row?.enabledAt?.toISOString() ?? null,
      pending_setup: !!row && !on,
      recovery_codes_left: on ? await this.factors.recoveryCodesLeft(userId) : 0,
    };
  }

  async startSetup(userId: string): Promise<Schemas['TotpSetup']> {
    const email = await this.emailOf(userId);
    const secret = newTotpSecret();
    if (!(await this.factors.savePending(userId, this.keys.seal(userId, secret)))) throw new ConflictException(TWO_FACTOR_MESSAGES.setupWhileOn);
    return {
      otpauth_uri: totpUri(secret, email),
      secret,
      issuer: PRODUCT_NAME,
      account_name: email,
      digits: TOTP.digits,
      period: TOTP.period,
      algorithm: 'SHA1',
    };
  }

  async confirmSetup(userId: string, code: string, ip: string): Promise<Schemas['RecoveryCodes']> {
    const email = await this.emailOf(userId);
    const codes = newRecoveryCodes();
    await this.transactions.run(async (tx) => {
      const row = await this.factors.byUser(userId, true, tx);
      if (!row) throw new ConflictException(TWO_FACTOR_MESSAGES.noSetup);
      if (row.enabledAt) throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyOn);
      await this.limits.admit({ ip, userId });
      const step = await totpStep(this.keys.open(userId, row.sealedSecret), code);
      if (step === null) {
        await this.limits.wrong(userId);
        throw new BadRequestException(TWO_FACTOR_MESSAGES.wrongCode);
      }
      // The row is locked, so the secret checked is the one turned on.
      await this.factors.enable(userId, row.sealedSecret, step, tx);
      await this.factors.replaceRecoveryCodes(userId, this.recoveryHashes(userId, codes), tx);
    });
    await this.limits.right(ip, userId);
    await this.mail.deliver(totpEnabledEmail(email, this.config.mail.supportEmail));
    return { recovery_codes: codes };
  }

  async disable(userId: string, proof: Proof, ip: string): Promise<Schemas['TwoFactorStatus']> {
    const email = await this.emailOf(userId);
    await this.transactions.run(async (tx) => {
      await this.checkSignedIn(userId, proof, ip, tx);
      await this.factors.removeAllOf(userId, tx);
    });
    await this.limits.right(ip, userId);
    await this.mail.deliver(totpDisabledEmail(email, this.config.mail.supportEmail));
    if (proof.recovery_code) await this.mail.deliver(recoveryCodeUsedEmail(email, 0, this.config.mail.supportEmail));
    return { totp_enabled: false, enabled_at: null, pending_setup: false, recovery_codes_left: 0 };
  }

  async regenerateRecoveryCodes(userId: string, proof: Proof, ip: string): Promise<Schemas['RecoveryCodes']> {
    const email = await this.emailOf(userId);
    const codes = newRecoveryCodes();
    await this.transactions.run(async (tx) => {
      await this.checkSignedIn(userId, proof, ip, tx);
      await this.factors.replaceRecoveryCodes(userId, this.recoveryHashes(userId, codes), tx);
    });
    await this.limits.right(ip, userId);
    if (proof.recovery_code) await this.mail.deliver(recoveryCodeUsedEmail(email, RECOVERY_CODE_COUNT, this.config.mail.supportEmail));
    return { recovery_codes: codes };
  }

  /**
   * Whether signing in to this account takes a second step: an authenticator app or a passkey is on. A user who
   * turned on either cannot be signed in with their password (or social account) alone.
   */
  async isEnabled(userId: string, tx?: Tx): Promise<boolean> {
    return !!(await this.factors.byUser(userId, false, tx))?.enabledAt || (await this.passkeys.countOf(userId, tx)) > 0;
  }

  /** What a sign-in answers instead of a session when the account has two-factor sign-in on. */
  async challenge(pending: PendingSignIn, tx?: Tx): Promise<Schemas['TwoFactorChallenge']> {
    const methods: Schemas['TwoFactorMethod'][] = [];
    if ((await this.factors.byUser(pending.userId, false, tx))?.enabledAt) {
      methods.push('totp');
      if ((await this.factors.recoveryCodesLeft(pending.userId, tx)) > 0) methods.push('recovery_code');
    }
    if ((await this.passkeys.countOf(pending.userId, tx)) > 0) methods.push('passkey');
    return {
      two_factor_required: true,
      challenge_token: await this.challenges.issue(pending),
      methods,
      expires_in: CHALLENGE_TTL_SECONDS,
    };
  }

  /**
   * The second step of a sign-in (or, with `purpose`, of an account deletion) with a passkey: `verify` checks the
   * passkey against the challenge's account (the caller has used up the WebAuthn challenge). Tries count as wrong
   * codes do; the challenge is used up only when it passes.
   */
  async passChallengeWith(
    token: string,
    ip: string,
    verify: (userId: string) => Promise<string | null>,
    purpose?: ChallengePurpose,
  ): Promise<PendingSignIn> {
    const pending = await this.pending(token, purpose);
    await this.limits.admit({ ip, userId: pending.userId, challengeToken: token, expired: expiredMessage(purpose) });
    if (!(await verify(pending.userId))) {
      await this.limits.wrong(pending.userId);
      throw new UnauthorizedException(TWO_FACTOR_MESSAGES.wrongPasskey);
    }
    if (!(await this.challenges.consume(token))) throw new UnauthorizedException(expiredMessage(purpose));
    await this.limits.right(ip, pending.userId);
    return pending;
  }

  /**
   * The second step of a sign-in (or, with `purpose`, of an account deletion): the challenge's account, once its code
   * is right; the challenge is then used up. A wrong code leaves the challenge for another try (within the limits).
   */
  async passChallenge(input: RequestBody<'loginTwoFactor'>, ip: string, purpose?: ChallengePurpose): Promise<PendingSignIn> {
    const pending = await this.pending(input.challenge_token, purpose);
    await this.limits.admit({ ip, userId: pending.userId, challengeToken: input.challenge_token, expired: expiredMessage(purpose) });
    const row = await this.factors.byUser(pending.userId, false);
    if (!row?.enabledAt) {
      // A passkey-only account has no code to check; with no second factor left, that sign-in starts again.
      if ((await this.passkeys.countOf(pending.userId)) > 0) {
        await this.limits.wrong(pending.userId);
        throw new UnauthorizedException(TWO_FACTOR_MESSAGES[input.code !== undefined ? 'wrongCode' : 'wrongRecoveryCode']);
      }
      throw new UnauthorizedException(expiredMessage(purpose));
    }
    const verdict = await this.check(row, input);
    if (verdict !== 'ok') {
      await this.limits.wrong(pending.userId);
      throw new UnauthorizedException(TWO_FACTOR_MESSAGES[verdict]);
    }
    if (!(await this.challenges.consume(input.challenge_token))) throw new UnauthorizedException(expiredMessage(purpose));
    await this.limits.right(ip, pending.userId);
    if (input.recovery_code) await this.noticeRecoveryCodeUsed(pending.userId);
    return pending;
  }

  /** A live challenge of this purpose (a sign-in's never completes a deletion, nor the reverse), else 401. */
  private async pending(token: string, purpose: ChallengePurpose): Promise<PendingSignIn> {
    const pending = await this.challenges.peek(token);
    if (!pending || pending.purpose !== purpose) throw new UnauthorizedException(expiredMessage(purpose));
    return pending;
  }

  /** The account's two-factor sign-in and passkeys go with the rest of its personal data. */
  async removeAllOf(userId: string, tx: Tx): Promise<void> {
    await this.factors.removeAllOf(userId, tx);
    await this.passkeys.removeAllOf(userId, tx);
  }

  /** A signed-in caller's proof, for changing their two-factor sign-in (400 when wrong, 409 when it is off). */
  private async checkSignedIn(userId: string, proof: Proof, ip: string, tx: Tx): Promise<void> {
    const row = await this.factors.byUser(userId, true, tx);
    if (!row?.enabledAt) throw new ConflictException(TWO_FACTOR_MESSAGES.off);
    await this.limits.admit({ ip, userId });
    const verdict = await this.check(row, proof, tx);
    if (verdict !== 'ok') {
      await this.limits.wrong(userId);
      throw new BadRequestException(TWO_FACTOR_MESSAGES[verdict]);
    }
  }

  /** Checks a code (its step must come after the last one accepted) or uses a recovery code up. */
  private async check(row: TwoFactorRow, proof: Proof, tx?: Tx): Promise<Verdict> {
    if (proof.code !== undefined) {
      const step = await totpStep(this.keys.open(row.userId, row.sealedSecret), proof.code);
      if (step === null) return 'wrongCode';
      return (await this.factors.useStep(row.userId, step, tx)) ? 'ok' : 'usedCode';
    }
    const hash = this.keys.recoveryHash(row.userId, normalizeRecoveryCode(proof.recovery_code ?? ''));
    return (await this.factors.useRecoveryCode(row.userId, hash, tx)) ? 'ok' : 'wrongRecoveryCode';
  }

  private recoveryHashes(userId: string, codes: string[]): string[] {
    return codes.map((c) => this.keys.recoveryHash(userId, normalizeRecoveryCode(c)));
  }

  private async noticeRecoveryCodeUsed(userId: string): Promise<void> {
    const email = await this.emailOf(userId);
    await this.mail.deliver(recoveryCodeUsedEmail(email, await this.factors.recoveryCodesLeft(userId), this.config.mail.supportEmail));
  }

  private async emailOf(userId: string): Promise<string> {
    const user = await this.users.byId(userId);
    if (!user?.email || user.deletedAt) throw new UnauthorizedException(AUTH_REQUIRED);
    return user.email;
  }
}

const expiredMessage = (purpose: ChallengePurpose) => TWO_FACTOR_MESSAGES[purpose === 'deletion' ? 'deletionExpired' : 'expired'];
