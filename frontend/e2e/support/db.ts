import { databaseUrl, query as queryDatabase } from '@glob/testing';

/** Reads the full-stack run's database (E2E_DB, created by stack.mjs on the same server: E2E_PG_URL, else the tests'). */
export async function query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryDatabase<T>(databaseUrl(process.env.E2E_DB!, process.env.E2E_PG_URL), sql, params);
}
