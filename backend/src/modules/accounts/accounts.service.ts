import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import type { MailJob } from '../../jobs/jobs';
import { MailService } from '../../mail/mail.service';
import { CODE_TTL_SECONDS, CodesService, CodePurpose, VERIFICATION_TOKEN_TTL_SECONDS } from './codes.service';
import { alreadyRegisteredEmail, deletionCodeEmail, noAccountEmail, passwordResetCodeEmail, signupCodeEmail } from './emails';
import { User } from './entities/user.entity';
import { WelcomeBonusClaims } from './mailboxes';
import { isCommonPassword, PasswordsService } from './passwords';
import { SessionsService } from './sessions.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';

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

export function toUserBody(user: User, balanceUnits: number | string): Schemas['User'] {
  return {
    id: user.id,
    email: user.email!,
    username: user.username!,
    token_balance: toGlob(balanceUnits),
    created_at: user.createdAt.toISOString(),
  };
}

@Injectable()
export class AccountsService {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: SessionsService,
    private readonly codes: CodesService,
    private readonly mail: MailService,
    private readonly ledger: LedgerService,
    private readonly passwords: PasswordsService,
    private readonly bonusClaims: WelcomeBonusClaims,
  ) {}

  /** The user as the API shows it, with the wallet's balance. */
  async userBody(user: User, em: EntityManager = this.db.manager): Promise<Schemas['User']> {
    return toUserBody(user, (await this.ledger.walletOf(user.id, em)).balance);
  }

  /**
   * A new account's wallet, inside the account's creating transaction, with the welcome bonus and its
   * notification only if the mailbox never had one (deleting and signing up again earns nothing).
   */
  async openWallet(em: EntityManager, userId: string, email: string): Promise<void> {
    await this.ledger.openWallet(em, userId, await this.bonusClaims.claim(em, email));
  }

  /**
   * An unverified account (made before an address had to be proved to sign up) passes to whoever proves the
   * address: the squatter's password (unless a new one is given), sessions, linked sign-ins, conversations and
   * notifications go, and the account becomes verified.
   */
  async claimUnverified(em: EntityManager, user: User, passwordHash: string | null, username?: string): Promise<User> {
    await this.removePersonalData(em, user.id);
    await em.getRepository(User).update({ id: user.id }, { passwordHash, emailVerifiedAt: new Date(), ...(username ? { username } : {}) });
    return await em.getRepository(User).findOneByOrFail({ id: user.id });
  }

  /** Ends every session and removes what belongs to the person (ledger rows stay). */
  private async removePersonalData(em: EntityManager, userId: string): Promise<void> {
    await this.sessions.revokeAllOf(userId, em);
    await em.query(`DELETE FROM identities WHERE user_id = $1`, [userId]);
    await em.query(`DELETE FROM notifications WHERE user_id = $1`, [userId]);
    await em.query(`DELETE FROM conversations WHERE user_id = $1`, [userId]);
  }

  async findActiveByEmail(email: string, em: EntityManager = this.db.manager, forUpdate = false): Promise<User | null> {
    const query = em
      .getRepository(User)
      .createQueryBuilder('u')
      .where('lower(u.email) = :email AND u.deleted_at IS NULL', { email: normalizeEmail(email) });
    return (forUpdate ? query.setLock('pessimistic_write') : query).getOne();
  }

  async session(user: User, em?: EntityManager): Promise<Schemas['AuthSession']> {
    return { ...(await this.sessions.start(user.id, em)), user: await this.userBody(user, em) };
  }

  async me(userId: string): Promise<Schemas['CurrentUser']> {
    const user = await this.db.getRepository(User).findOneBy({ id: userId });
    if (!user || user.deletedAt) throw new NotFoundException(MESSAGES.userNotFound);
    return { user: await this.userBody(user) };
  }

  async login(input: RequestBody<'login'>): Promise<Schemas['AuthSession']> {
    const user = await this.findActiveByEmail(input.email);
    // Unknown e-mail, social-only account or wrong password: one answer, and the same argon2 cost.
    const ok = await this.passwords.verify(user?.passwordHash ?? null, input.password);
    if (!user || !ok) throw new UnauthorizedException(MESSAGES.invalidLogin);
    return this.session(user);
  }

  /**
   * Creates a password account for an address proved by a sign-up code (register and register-with-otp alike):
   * without a valid verification token nothing is looked up, so the answer says nothing about the address.
   */
  async register(input: RequestBody<'register'>): Promise<Schemas['AuthSession']> {
    const email = normalizeEmail(input.email);
    const token = input.verification_token;
    if (!token || !(await this.codes.verificationTokenMatches(token, email, 'signup'))) {
      throw new BadRequestException(MESSAGES.verificationRequired);
    }
    if (isCommonPassword(input.password)) throw new UnprocessableEntityException(MESSAGES.commonPassword);
    const passwordHash = await this.passwords.hash(input.password);
    const username = input.username.trim();
    return this.db.transaction(async (em) => {
      const existing = await this.findActiveByEmail(email, em, true);
      if (existing?.emailVerifiedAt) throw new ConflictException(MESSAGES.emailTaken);
      let user: User;
      if (existing) {
        user = await this.claimUnverified(em, existing, passwordHash, username);
      } else {
        try {
          user = await em.getRepository(User).save({ email, username, passwordHash, emailVerifiedAt: new Date() });
        } catch (err) {
          if ((err as { code?: string }).code === '23505') throw new ConflictException(MESSAGES.emailTaken);
          throw err;
        }
        await this.openWallet(em, user.id, email);
      }
      const session = await this.session(user, em);
      // The token is used up only if the account is really created (a 409 or 422 leaves it usable).
      if (!(await this.codes.consumeVerificationToken(token, email, 'signup'))) throw new BadRequestException(MESSAGES.verificationRequired);
      return session;
    });
  }

  /**
   * Sets a new password for an address proved by a password-reset code; every other session ends, and the
   * answer is a new one.
   */
  async resetPassword(input: RequestBody<'resetPassword'>): Promise<Schemas['AuthSession']> {
    const email = normalizeEmail(input.email);
    if (!(await this.codes.verificationTokenMatches(input.verification_token, email, 'password_reset'))) {
      throw new BadRequestException(MESSAGES.verificationRequired);
    }
    if (isCommonPassword(input.password)) throw new UnprocessableEntityException(MESSAGES.commonPassword);
    const passwordHash = await this.passwords.hash(input.password);
    return this.db.transaction(async (em) => {
      let user = await this.findActiveByEmail(email, em, true);
      if (!user || !(await this.codes.consumeVerificationToken(input.verification_token, email, 'password_reset'))) {
        throw new BadRequestException(MESSAGES.verificationRequired);
      }
      if (user.emailVerifiedAt) {
        await this.sessions.revokeAllOf(user.id, em);
        await em.getRepository(User).update({ id: user.id }, { passwordHash });
      } else {
        user = await this.claimUnverified(em, user, passwordHash);
      }
      return this.session(user, em);
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
    return { message: MESSAGES.codeSent, expires_in: CODE_TTL_SECONDS[purpose], resend_after: this.config.otpResendSeconds };
  }

  private codeEmail(email: string, purpose: CodePurpose, code: string, user: User | null): MailJob {
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
    const ok = await this.codes.check(normalizeEmail(input.email), 'deletion', input.otp, { consume: false });
    if (!ok) throw new BadRequestException(MESSAGES.invalidDeletionCode);
    return { verified: true, message: MESSAGES.deletionCodeOk };
  }

  /**
   * Deletes the account proved by the deletion code: every session ends and personal data goes in one
   * transaction; ledger rows stay, pointing at the anonymised user. The e-mail can register again, but its
   * mailbox keeps its place in the welcome-bonus register.
   */
  async deleteAccount(input: RequestBody<'deleteAccount'>): Promise<Schemas['Acknowledgement']> {
    const email = normalizeEmail(input.email);
    if (!(await this.codes.check(email, 'deletion', input.otp, { consume: true }))) {
      throw new BadRequestException(MESSAGES.invalidDeletionCode);
    }
    await this.db.transaction(async (em) => {
      const user = await this.findActiveByEmail(email, em, true);
      if (!user) throw new BadRequestException(MESSAGES.invalidDeletionCode);
      await this.removePersonalData(em, user.id);
      await this.bonusClaims.remember(em, email);
      await em.query(`DELETE FROM one_time_codes WHERE email = $1`, [email]);
      await em.query(
        `UPDATE users SET email = NULL, username = NULL, password_hash = NULL, email_verified_at = NULL,
                deleted_at = now(), updated_at = now() WHERE id = $1`,
        [user.id],
      );
    });
    return { message: MESSAGES.accountDeleted };
  }
}
