import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server the tests use: TEST_DATABASE_URL, else DATABASE_URL, else the local one. Only its host is used. */
export function serverUrl(): URL {
  return new URL(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
}

export function databaseUrl(name: string): string {
  const url = serverUrl();
  url.pathname = `/${name}`;
  return url.toString();
}

export function randomName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
