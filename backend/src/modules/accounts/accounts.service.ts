import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException, UnauthorizedException, UnprocessableEntityException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { RequestBody, Schemas } from '../../contract/types';
import { MailService } from '../../mail/mail.service';
import { CODE_TTL_SECONDS, CodesService, CodePurpose, VERIFICATION_TOKEN_TTL_SECONDS } from './codes.service';
import { alreadyRegisteredEmail, deletionCodeEmail, signupCodeEmail } from './emails';
import { User } from './entities/user.entity';
import { hashPassword, isCommonPassword, verifyPassword } from './passwords';
import { SessionsService } from './sessions.service';
import { LedgerService } from '../wallet/ledger.service';
import { toGlob } from '../wallet/units';

/** Messages of the product documents (001 §5, §8) and of the spec. */
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
  ) {}

  /** The user as the API shows it, with the wallet's balance. */
  async userBody(user: User, em: EntityManager = this.db.manager): Promise<Schemas['User']> {
    return toUserBody(user, (await this.ledger.walletOf(user.id, em)).balance);
  }

  /** A new account's wallet, welcome bonus and notification — inside the account's creating transaction. */
  openWallet(em: EntityManager, userId: string): Promise<void> {
    return this.ledger.openWallet(em, userId);
  }

  async findActiveByEmail(email: string, em: EntityManager = this.db.manager): Promise<User | null> {
    return em
      .getRepository(User)
      .createQueryBuilder('u')
      .where('lower(u.email) = :email AND u.deleted_at IS NULL', { email: normalizeEmail(email) })
      .getOne();
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
    const ok = await verifyPassword(user?.passwordHash ?? null, input.password);
    if (!user || !ok) throw new UnauthorizedException(MESSAGES.invalidLogin);
    return this.session(user);
  }

  /** Creates a password account (and its first session) in one transaction. */
  private async createAccount(
    input: { email: string; password: string; username: string },
    verified: boolean,
    beforeCommit?: () => Promise<void>,
  ): Promise<Schemas['AuthSession']> {
    if (isCommonPassword(input.password)) throw new UnprocessableEntityException(MESSAGES.commonPassword);
    const passwordHash = await hashPassword(input.password);
    return this.db.transaction(async (em) => {
      if (await this.findActiveByEmail(input.email, em)) throw new ConflictException(MESSAGES.emailTaken);
      let user: User;
      try {
        user = await em.getRepository(User).save({
          email: normalizeEmail(input.email),
          username: input.username.trim(),
          passwordHash,
          emailVerifiedAt: verified ? new Date() : null,
        });
      } catch (err) {
        if ((err as { code?: string }).code === '23505') throw new ConflictException(MESSAGES.emailTaken);
        throw err;
      }
      await this.openWallet(em, user.id);
      const session = await this.session(user, em);
      await beforeCommit?.();
      return session;
    });
  }

  register(input: RequestBody<'register'>): Promise<Schemas['AuthSession']> {
    return this.createAccount(input, false);
  }

  async registerWithOtp(input: RequestBody<'registerWithOtp'>): Promise<Schemas['AuthSession']> {
    const email = normalizeEmail(input.email);
    if (!(await this.codes.verificationTokenMatches(input.verification_token, email))) {
      throw new BadRequestException(MESSAGES.verificationRequired);
    }
    // The token is used up only if the account is really created (a 409 or 422 leaves it usable).
    return this.createAccount({ ...input, email }, true, async () => {
      if (!(await this.codes.consumeVerificationToken(input.verification_token, email))) {
        throw new BadRequestException(MESSAGES.verificationRequired);
      }
    });
  }

  /**
   * Sends a code. The answer is the same whether or not the address has an account: for sign-up, a
   * registered address gets a "you already have an account" e-mail instead; for deletion, an unknown
   * address gets nothing.
   */
  async sendCode(rawEmail: string, purpose: CodePurpose): Promise<Schemas['OtpSent']> {
    const email = normalizeEmail(rawEmail);
    await this.codes.claimSendSlot(email, purpose);
    const user = await this.findActiveByEmail(email);
    if (purpose === 'signup') {
      if (user) await this.mail.deliver(alreadyRegisteredEmail(email, this.config.publicWebUrl));
      else await this.mail.deliver(signupCodeEmail(email, await this.codes.issue(email, 'signup'), CODE_TTL_SECONDS.signup));
    } else if (user) {
      await this.mail.deliver(deletionCodeEmail(email, await this.codes.issue(email, 'deletion'), CODE_TTL_SECONDS.deletion));
    }
    return { message: MESSAGES.codeSent, expires_in: CODE_TTL_SECONDS[purpose], resend_after: this.config.otpResendSeconds };
  }

  async verifyCode(input: RequestBody<'verifyOtp'>): Promise<Schemas['OtpVerified']> {
    const email = normalizeEmail(input.email);
    const purpose = input.purpose ?? 'signup';
    if (purpose === 'deletion') {
      // Deletion codes are used up by delete-account itself, so checking one here does not spend it.
      if (!(await this.codes.check(email, 'deletion', input.otp, { consume: false }))) throw new BadRequestException(MESSAGES.invalidCode);
    } else if (!(await this.codes.check(email, 'signup', input.otp, { consume: true }))) {
      throw new BadRequestException(MESSAGES.invalidCode);
    }
    return {
      verified: true,
      verification_token: await this.codes.issueVerificationToken(email),
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
   * transaction; ledger rows (later) stay, pointing at the anonymised user. The e-mail can register again.
   */
  async deleteAccount(input: RequestBody<'deleteAccount'>): Promise<Schemas['Acknowledgement']> {
    const email = normalizeEmail(input.email);
    if (!(await this.codes.check(email, 'deletion', input.otp, { consume: true }))) {
      throw new BadRequestException(MESSAGES.invalidDeletionCode);
    }
    await this.db.transaction(async (em) => {
      const user = await this.findActiveByEmail(email, em);
      if (!user) throw new BadRequestException(MESSAGES.invalidDeletionCode);
      await this.sessions.revokeAllOf(user.id, em);
      await em.query(`DELETE FROM identities WHERE user_id = $1`, [user.id]);
      await em.query(`DELETE FROM notifications WHERE user_id = $1`, [user.id]);
      await em.query(`DELETE FROM conversations WHERE user_id = $1`, [user.id]);
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
