import { Injectable } from '@nestjs/common';
import { Repository, type Tx } from '../../database/repository';

/** An account. */
export interface User {
  id: string;
  /** Stored lower-cased; null once the account is deleted. */
  email: string | null;
  username: string | null;
  /** argon2id; null for accounts that only sign in through a provider. */
  passwordHash: string | null;
  emailVerifiedAt: Date | null;
  createdAt: Date;
  deletedAt: Date | null;
}

export type OAuthProviderId = 'google' | 'github' | 'microsoft';

/** A provider's account linked to one of ours. */
export interface Identity {
  id: string;
  userId: string;
}

interface UserRow {
  id: string;
  email: string | null;
  username: string | null;
  password_hash: string | null;
  email_verified_at: Date | null;
  created_at: Date;
  deleted_at: Date | null;
}

const USER = 'u.id, u.email, u.username, u.password_hash, u.email_verified_at, u.created_at, u.deleted_at';
const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  username: r.username,
  passwordHash: r.password_hash,
  emailVerifiedAt: r.email_verified_at,
  createdAt: r.created_at,
  deletedAt: r.deleted_at,
});

/** The accounts' tables: users, identities (linked sign-ins) and welcome_bonus_claims. */
@Injectable()
export class UsersRepository extends Repository {
  async byId(id: string, tx?: Tx): Promise<User | undefined> {
    const row = await this.one<UserRow>(`SELECT ${USER} FROM users u WHERE u.id = $1`, [id], tx);
    return row && toUser(row);
  }

  /** The live account with this (normalised) address; `forUpdate` locks it until the transaction ends. */
  async activeByEmail(email: string, forUpdate: boolean, tx?: Tx): Promise<User | undefined> {
    const row = await this.one<UserRow>(
      `SELECT ${USER} FROM users u WHERE lower(u.email) = $1 AND u.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [email],
      tx,
    );
    return row && toUser(row);
  }

  /** A new account; undefined when the address is taken (the unique index refused it). */
  async insert(email: string, username: string, passwordHash: string | null, tx: Tx): Promise<User | undefined> {
    const row = await this.one<UserRow>(
      `INSERT INTO users (email, username, password_hash, email_verified_at) VALUES ($1, $2, $3, now())
       ON CONFLICT DO NOTHING
       RETURNING id, email, username, password_hash, email_verified_at, created_at, deleted_at`,
      [email, username, passwordHash],
      tx,
    );
    return row && toUser(row);
  }

  async setPassword(id: string, passwordHash: string | null, tx: Tx): Promise<void> {
    await this.rows(`UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1`, [id, passwordHash], tx);
  }

  /** Marks the address proved, with a new password (and username, when given). */
  async markVerified(id: string, passwordHash: string | null, username: string | undefined, tx: Tx): Promise<User> {
    const row = await this.one<UserRow>(
      `UPDATE users SET password_hash = $2, email_verified_at = now(), username = COALESCE($3, username), updated_at = now()
       WHERE id = $1 RETURNING id, email, username, password_hash, email_verified_at, created_at, deleted_at`,
      [id, passwordHash, username ?? null],
      tx,
    );
    return toUser(row!);
  }

  /** Anonymises a deleted account: its ledger rows keep pointing at it. */
  async anonymise(id: string, tx: Tx): Promise<void> {
    await this.rows(
      `UPDATE users SET email = NULL, username = NULL, password_hash = NULL, email_verified_at = NULL,
              deleted_at = now(), updated_at = now() WHERE id = $1`,
      [id],
      tx,
    );
  }

  async identity(provider: OAuthProviderId, providerUserId: string, tx: Tx): Promise<Identity | undefined> {
    return this.one<Identity>(
      `SELECT id, user_id AS "userId" FROM identities WHERE provider = $1 AND provider_user_id = $2`,
      [provider, providerUserId],
      tx,
    );
  }

  /** Links the provider's account to the user, replacing a link it had to another account. */
  async link(userId: string, provider: OAuthProviderId, providerUserId: string, email: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM identities WHERE provider = $1 AND provider_user_id = $2`, [provider, providerUserId], tx);
    await this.rows(
      `INSERT INTO identities (user_id, provider, provider_user_id, email) VALUES ($1, $2, $3, $4)`,
      [userId, provider, providerUserId, email],
      tx,
    );
  }

  async unlinkAll(userId: string, tx: Tx): Promise<void> {
    await this.rows(`DELETE FROM identities WHERE user_id = $1`, [userId], tx);
  }

  /** Records a mailbox's welcome bonus; true if it never had one. */
  async claimBonus(mailboxHash: string, tx: Tx): Promise<boolean> {
    return (
      (await this.count(
        `INSERT INTO welcome_bonus_claims (mailbox_hash) VALUES ($1) ON CONFLICT DO NOTHING RETURNING mailbox_hash`,
        [mailboxHash],
        tx,
      )) === 1
    );
  }
}
