import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';

/**
 * A database transaction. Every repository method, and every service method that works inside a caller's
 * transaction, takes it as its last parameter, named `tx`; without one a repository uses the pool.
 */
export type Tx = EntityManager;

/** Where services start a transaction; SQL itself lives only in repositories. */
@Injectable()
export class Transactions {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}

/**
 * TypeORM's postgres driver answers UPDATE/DELETE … RETURNING with [rows, affectedCount] and other
 * statements with rows; this gives the rows either way.
 */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** The base of every repository: SQL with typed rows, on the caller's transaction or the pool. */
export abstract class Repository {
  constructor(@Inject(DataSource) protected readonly dataSource: DataSource) {}

  protected async rows<T>(sql: string, params: unknown[] = [], tx: Tx = this.dataSource.manager): Promise<T[]> {
    return rowsOf<T>(await tx.query(sql, params));
  }

  protected async one<T>(sql: string, params: unknown[] = [], tx: Tx = this.dataSource.manager): Promise<T | undefined> {
    return (await this.rows<T>(sql, params, tx))[0];
  }

  /** The number of rows an INSERT/UPDATE/DELETE … RETURNING touched. */
  protected async count(sql: string, params: unknown[] = [], tx: Tx = this.dataSource.manager): Promise<number> {
    return (await this.rows(sql, params, tx)).length;
  }
}

/** A repository whose SQL binds settings (the live window of a node, time limits): the base, with the app's config. */
export abstract class ConfiguredRepository extends Repository {
  constructor(
    @Inject(DataSource) dataSource: DataSource,
    @Inject(APP_CONFIG) protected readonly config: AppConfig,
  ) {
    super(dataSource);
  }
}
