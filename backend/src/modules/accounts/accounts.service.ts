import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import type { MailJob } from '../../jobs/jobs';
import { Transactions, type Tx } from '../../database/repository';
import { MailService } from '../../mail/mail.service';
import { CODE_TTL_SECONDS, CodesService, CodePurpose, VERIFICATION_TOKEN_TTL_SECONDS } from './codes.service';
import { alreadyRegisteredEmail, deletionCodeEmail, noAccountEmail, passwordResetCodeEmail, signupCodeEmail } from './emails';
import { WelcomeBonusClaims } from './mailboxes';
import { isCommonPassword, PasswordsService } from './passwords';
import type { SessionClient } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { UsersRepository, type User } from './users.repository';
import { userRole } from '../admin/admin-role';
import { ConversationsRepository } from '../chat/conversations.repository';
import { NotificationsRepository } from '../notifications/notifications.repository';
import { PasskeysService } from '../security/passkeys.service';
import type { PendingSignIn } from '../security/sign-in-challenges';
import { TWO_FACTOR_MESSAGES, TwoFactorService } from '../security/two-factor.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../../common/units';

/** The messages users see, as the web app and the spec word them. */
export const MESSAGES = {
  invalidLogin: 'Invalid email or password',
  emailTaken: 'An account with this email already exists',
  commonPassword: 'This password is too common. Please choose a different password.',
  codeSent: 'Verification code sent successfully',
  invalidCode: 'Invalid verification code',
  emailVerified: 'Email verified successfully',
  verificationRequired: 'Email verification required',
  invalidDeletionCode: 'Invalid OTP code. Please try again.',
  deletionCodeOk: 'Code verified. Confirm to delete your account.',
  accountDeleted: 'Your account has been deleted.',
  userNotFound: 'Account not found',
} as const;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function toUserBody(user: User, balanceUnits: number | string, adminEmails: readonly string[]): Schemas['User'] {
  return {
    id: user.id,
    email: user.email!,
    username: user.username!,
    token_balance: toGlob(balanceUnits),
    created_at: user.createdAt.toISOString(),
    role: userRole(user, adminEmails),
  };
}

@Injectable()
export class AccountsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly users: UsersRepository,
    private readonly conversations: ConversationsRepository,
    private readonly notifications: NotificationsRepository,
    private readonly sessions: SessionsService,
    private readonly codes: CodesService,
    private readonly mail: MailService,
    private readonly ledger: LedgerService,
    private readonly passwords: PasswordsService,
    private readonly bonusClaims: WelcomeBonusClaims,
    private readonly twoFactor: TwoFactorService,
    private readonly passkeys: PasskeysService,
  ) {}

  /** The user as the API shows it, with the wallet's balance and the role (read again on every call). */
  async userBody(user: User, tx?: Tx): Promise<Schemas['User']> {
    return toUserBody(user, (await this.ledger.walletOf(user.id, tx)).balance, this.config.adminEmails);
  }

  /**
   * A new account's wallet, inside the account's creating transaction, with the welcome bonus and its
   * notification only if the mailbox never had one (deleting and signing up again earns nothing).
   */
  async openWallet(userId: string, email: string, tx: Tx): Promise<void> {
    await this.ledger.openWallet(userId, await this.bonusClaims.claim(email, tx), tx);
  }

  /**
   * An unverified account (made before an address had to be proved to sign up) passes to whoever proves the
   * address: the squatter's password (unless a new one is given), sessions, linked sign-ins, conversations and
   * notifications go, and the account becomes verified.
   */
  async claimUnverified(user: User, passwordHash: string | null, username: string | undefined, tx: Tx): Promise<User> {
    await this.removePersonalData(user.id, tx);
    return this.users.markVerified(user.id, passwordHash, username || undefined, tx);
  }

  /** Ends every session and removes what belongs to the person (ledger rows stay). */
  private async removePersonalData(userId: string, tx: Tx): Promise<void> {
    await this.sessions.revokeAllOf(userId, tx);
    await this.users.unlinkAll(userId, tx);
    await this.twoFactor.removeAllOf(userId, tx);
    await this.notifications.removeAllOf(userId, tx);
    await this.conversations.removeAllOf(userId, tx);
  }

  /** The live account with this address; `forUpdate` locks it until the transaction ends. */
  findActiveByEmail(email: string, forUpdate = false, tx?: Tx): Promise<User | undefined> {
    return this.users.activeByEmail(normalizeEmail(email), forUpdate, tx);
  }

  /** A new sign-in of the user from this client. */
  async session(user: User, client: SessionClient, tx?: Tx): Promise<Schemas['AuthSession']> {
    return { ...(await this.sessions.start(user.id, client, tx)), user: await this.userBody(user, tx) };
  }

  async me(userId: string): Promise<Schemas['CurrentUser']> {
    const user = await this.users.byId(userId);
    if (!user || user.deletedAt) throw new NotFoundException(MESSAGES.userNotFound);
    return { user: await this.userBody(user) };
  }

  /** A session, or the challenge of the second step when the account has two-factor sign-in on. */
  async sessionOrChallenge(user: User, client: SessionClient, tx?: Tx): Promise<Schemas['LoginResult']> {
    if (await this.twoFactor.isEnabled(user.id, tx)) return this.twoFactor.challenge({ userId: user.id }, tx);
    return this.session(user, client, tx);
  }

  async login(input: RequestBody<'login'>, client: SessionClient): Promise<Schemas['LoginResult']> {
    const user = await this.findActiveByEmail(input.email);
    // Unknown e-mail, social-only account or wrong password: one answer, and the same argon2 cost.
    const ok = await this.passwords.verify(user?.passwordHash ?? null, input.password);
    if (!user || !ok) throw new UnauthorizedException(MESSAGES.invalidLogin);
    return this.sessionOrChallenge(user, client);
  }

  /**
   * The second step of a sign-in (password, social or password reset) for an account with two-factor sign-in: the
   * session, once the code is right. A password reset's new password is set only now, ending every other session.
   */
  async loginTwoFactor(input: RequestBody<'loginTwoFactor'>, client: SessionClient): Promise<Schemas['AuthSession']> {
    return this.finishSignIn(await this.twoFactor.passChallenge(input, client.ip), client);
  }

  /** A passkey sign-in: without a password (a discoverable passkey), or the second step of a challenge as above. */
  async loginPasskey(input: RequestBody<'loginPasskey'>, client: SessionClient): Promise<Schemas['AuthSession']> {
    return this.finishSignIn(await this.passkeys.signIn(input, client.ip), client);
  }

  private finishSignIn(passed: PendingSignIn, client: SessionClient): Promise<Schemas['AuthSession']> {
    return this.transactions.run(async (tx) => {
      const user = await this.users.byId(passed.userId, tx);
      if (!user || user.deletedAt) throw new UnauthorizedException(TWO_FACTOR_MESSAGES.expired);
      if (passed.passwordHash) {
        await this.sessions.revokeAllOf(user.id, tx);
        await this.users.setPassword(user.id, passed.passwordHash, tx);
      }
      return this.session(user, client, tx);
    });
  }

  /**
   * Creates a password account for an address proved by a sign-up code (register and register-with-otp alike):
   * without a valid verification token nothing is looked up, so the answer says nothing about the address.
   */
  async register(input: RequestBody<'register'>, client: SessionClient): Promise<Schemas['AuthSession']> {
    const email = normalizeEmail(input.email);
    const token = input.verification_token;
    if (!token || !(await this.codes.verificationTokenMatches(token, email, 'signup'))) {
      throw new BadRequestException(MESSAGES.verificationRequired);
    }
    if (isCommonPassword(input.password)) throw new UnprocessableEntityException(MESSAGES.commonPassword);
    const passwordHash = await this.passwords.hash(input.password);
    const username = input.username.trim();
    return this.transactions.run(async (tx) => {
      const existing = await this.findActiveByEmail(email, true, tx);
      if (existing?.emailVerifiedAt) throw new ConflictException(MESSAGES.emailTaken);
      let user: User;
      if (existing) {
        user = await this.claimUnverified(existing, passwordHash, username, tx);
      } else {
        const created = await this.users.insert(email, username, passwordHash, tx);
        if (!created) throw new ConflictException(MESSAGES.emailTaken);
        user = created;
        await this.openWallet(user.id, email, tx);
      }
      const session = await this.session(user, client, tx);
      // The token is used up only if the account is really created (a 409 or 422 leaves it usable).
      if (!(await this.codes.consumeVerificationToken(token, email, 'signup'))) throw new BadRequestException(MESSAGES.verificationRequired);
      return session;
    });
  }

  /**
   * Sets a new password for an address proved by a password-reset code; every other session ends, and the
   * answer is a new one. With two-factor sign-in on, an e-mailed code alone changes nothing: the answer is a
   * challenge, and the second step sets the password.
   */
  async resetPassword(input: RequestBody<'resetPassword'>, client: SessionClient): Promise<Schemas['LoginResult']> {
    const email = normalizeEmail(input.email);
    if (!(await this.codes.verificationTokenMatches(input.verification_token, email, 'password_reset'))) {
      throw new BadRequestException(MESSAGES.verificationRequired);
    }
    if (isCommonPassword(input.password)) throw new UnprocessableEntityException(MESSAGES.commonPassword);
    const passwordHash = await this.passwords.hash(input.password);
    return this.transactions.run(async (tx) => {
      let user = await this.findActiveByEmail(email, true, tx);
      if (!user || !(await this.codes.consumeVerificationToken(input.verification_token, email, 'password_reset'))) {
        throw new BadRequestException(MESSAGES.verificationRequired);
      }
      if (user.emailVerifiedAt && (await this.twoFactor.isEnabled(user.id, tx))) {
        return this.twoFactor.challenge({ userId: user.id, passwordHash }, tx);
      }
      if (user.emailVerifiedAt) {
        await this.sessions.revokeAllOf(user.id, tx);
        await this.users.setPassword(user.id, passwordHash, tx);
      } else {
        user = await this.claimUnverified(user, passwordHash, undefined, tx);
      }
      return this.session(user, client, tx);
    });
  }

  /**
   * Sends a code. The answer, and the work behind it, are the same whether or not the address has an account:
   * a code is always stored and one e-mail always queued; only its text differs (for sign-up, a verified
   * account's owner is told someone tried to sign up; for deletion and reset, an unknown address is told
   * there is no account).
   */
  async sendCode(rawEmail: string, purpose: CodePurpose, ip: string): Promise<Schemas['OtpSent']> {
    const email = normalizeEmail(rawEmail);
    await this.codes.claimSendSlot(email, purpose, ip);
    const user = await this.findActiveByEmail(email);
    const code = await this.codes.issue(email, purpose);
    await this.mail.deliver(this.codeEmail(email, purpose, code, user));
    return {
      message: MESSAGES.codeSent,
      expires_in: CODE_TTL_SECONDS[purpose],
      resend_after: this.config.otpResendSeconds,
      delivery: this.mail.delivery,
    };
  }

  /** The deletion challenge of this account, completed with a current code, a recovery code or a passkey; else 401. */
  private async passDeletionSecondFactor(userId: string, input: RequestBody<'deleteAccount'>, ip: string): Promise<void> {
    const token = input.challenge_token;
    if (!token || [input.code, input.recovery_code, input.passkey].filter((p) => p !== undefined).length !== 1) {
      throw new UnauthorizedException(TWO_FACTOR_MESSAGES.deletionNeedsSecondFactor);
    }
    const passed = input.passkey
      ? await this.passkeys.passDeletion(token, input.passkey, ip)
      : await this.twoFactor.passChallenge(
          { challenge_token: token, ...(input.code !== undefined ? { code: input.code } : { recovery_code: input.recovery_code! }) },
          ip,
          'deletion',
        );
    if (passed.userId !== userId) throw new UnauthorizedException(TWO_FACTOR_MESSAGES.deletionExpired);
  }

  private codeEmail(email: string, purpose: CodePurpose, code: string, user: User | undefined): MailJob {
    const ttl = CODE_TTL_SECONDS[purpose];
    const web = this.config.publicWebUrl;
    switch (purpose) {
      case 'signup':
        // An unverified account does not stop the address's owner: the code lets them claim it.
        return user?.emailVerifiedAt ? alreadyRegisteredEmail(email, web) : signupCodeEmail(email, code, ttl);
      case 'deletion':
        return user ? deletionCodeEmail(email, code, ttl) : noAccountEmail(email, purpose, web);
      case 'password_reset':
        return user ? passwordResetCodeEmail(email, code, ttl) : noAccountEmail(email, purpose, web);
    }
  }

  async verifyCode(input: RequestBody<'verifyOtp'>): Promise<Schemas['OtpVerified']> {
    const email = normalizeEmail(input.email);
    const purpose = input.purpose ?? 'signup';
    // Deletion codes are used up by delete-account itself, so checking one here does not spend it.
    if (!(await this.codes.check(email, purpose, input.otp, { consume: purpose !== 'deletion' }))) {
      throw new BadRequestException(MESSAGES.invalidCode);
    }
    return {
      verified: true,
      verification_token: await this.codes.issueVerificationToken(email, purpose),
      message: MESSAGES.emailVerified,
      expires_in: VERIFICATION_TOKEN_TTL_SECONDS,
    };
  }

  async verifyDeletionCode(input: RequestBody<'verifyDeletionOtp'>): Promise<Schemas['DeletionOtpVerified']> {
    const email = normalizeEmail(input.email);
    const ok = await this.codes.check(email, 'deletion', input.otp, { consume: false });
    if (!ok) throw new BadRequestException(MESSAGES.invalidDeletionCode);
    // A mailbox is one factor: an account with a second one is deleted only with it too, as it is signed in.
    const user = await this.findActiveByEmail(email);
    const twoFactor =
      user && (await this.twoFactor.isEnabled(user.id)) ? await this.twoFactor.challenge({ userId: user.id, purpose: 'deletion' }) : null;
    return { verified: true, message: MESSAGES.deletionCodeOk, ...(twoFactor ? { two_factor: twoFactor } : {}) };
  }

  /**
   * Deletes the account proved by the deletion code: every session ends and personal data goes in one
   * transaction; ledger rows stay, pointing at the anonymised user. The e-mail can register again, but its
   * mailbox keeps its place in the welcome-bonus register.
   */
  async deleteAccount(input: RequestBody<'deleteAccount'>, ip: string): Promise<Schemas['Acknowledgement']> {
    const email = normalizeEmail(input.email);
    // The e-mailed code is spent only once the second factor (where the account has one) passes: a wrong second
    // factor leaves it for another try.
    const proved = await this.codes.checkThenConsume(email, 'deletion', input.otp, async () => {
      const owner = await this.findActiveByEmail(email);
      if (owner && (await this.twoFactor.isEnabled(owner.id))) await this.passDeletionSecondFactor(owner.id, input, ip);
    });
    if (!proved) throw new BadRequestException(MESSAGES.invalidDeletionCode);
    await this.transactions.run(async (tx) => {
      const user = await this.findActiveByEmail(email, true, tx);
      if (!user) throw new BadRequestException(MESSAGES.invalidDeletionCode);
      await this.removePersonalData(user.id, tx);
      await this.bonusClaims.remember(email, tx);
      await this.codes.removeAll(email, tx);
      await this.users.anonymise(user.id, tx);
    });
    return { message: MESSAGES.accountDeleted };
  }
}
