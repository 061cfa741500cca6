import { admin, dropDatabase } from '@glob/testing';

export default async function globalTeardown(): Promise<void> {
  const template = process.env.GLOB_TEST_TEMPLATE_DB;
  if (!template) return;
  // Per-file copies that a crashed test file left behind, then the template itself.
  const { rows } = await admin((c) => c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${template}%`]));
  for (const { datname } of rows) if (datname !== template) await dropDatabase(datname);
  await dropDatabase(template);
}
