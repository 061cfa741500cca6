import { databaseUrl, query as queryDatabase } from '@glob/testing';

/** The full-stack run's database (E2E_DB, created by stack.mjs on the same server: E2E_PG_URL, else the tests'). */
export const stackDatabaseUrl = (): string => databaseUrl(process.env.E2E_DB!, process.env.E2E_PG_URL);

/** Reads (or, where a test plays a platform gone bad, changes) the full-stack run's database. */
export async function query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryDatabase<T>(stackDatabaseUrl(), sql, params);
}
