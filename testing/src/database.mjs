import { randomBytes } from 'node:crypto';
import pg from 'pg';

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

/** @type {typeof import('./index.mjs').serverUrl} */
export const serverUrl = (server = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? LOCAL_SERVER) => new URL(server);

/** @type {typeof import('./index.mjs').databaseUrl} */
export const databaseUrl = (name, server) => {
  const url = serverUrl(server);
  url.pathname = `/${name}`;
  return url.toString();
};

/** @type {typeof import('./index.mjs').randomName} */
export const randomName = (prefix) => `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

/** @type {typeof import('./index.mjs').admin} */
export const admin = async (fn, server) => {
  const client = new pg.Client({ connectionString: databaseUrl('postgres', server) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

/** @type {typeof import('./index.mjs').createDatabase} */
export const createDatabase = async (name, { template, server } = {}) => {
  const sql = `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(sql), server);
      return;
    } catch (err) {
      // PostgreSQL copies a template only while no other session uses it: two copies at the same moment, one waits.
      if (!template || attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
};

/** @type {typeof import('./index.mjs').dropDatabase} */
export const dropDatabase = async (name, server) => {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`), server);
};

/** @type {typeof import('./index.mjs').query} */
export const query = async (url, sql, params = []) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
};
