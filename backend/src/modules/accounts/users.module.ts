import { Module } from '@nestjs/common';
import { UsersRepository } from './users.repository';

/** The users table, one provider for the rooms that read it (accounts, security, admin). */
@Module({ providers: [UsersRepository], exports: [UsersRepository] })
export class UsersModule {}
