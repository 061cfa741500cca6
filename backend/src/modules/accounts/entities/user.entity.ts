import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn('uuid') id: string;
  /** Stored lower-cased; null once the account is deleted. */
  @Column('text', { nullable: true }) email: string | null;
  @Column('text', { nullable: true }) username: string | null;
  /** argon2id; null for accounts that only sign in through a provider. */
  @Column('text', { name: 'password_hash', nullable: true }) passwordHash: string | null;
  @Column('timestamptz', { name: 'email_verified_at', nullable: true }) emailVerifiedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
  @Column('timestamptz', { name: 'deleted_at', nullable: true }) deletedAt: Date | null;
}

@Entity({ name: 'identities' })
export class Identity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('text') provider: 'google' | 'github' | 'microsoft';
  @Column('text', { name: 'provider_user_id' }) providerUserId: string;
  @Column('text') email: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
