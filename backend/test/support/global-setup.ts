import 'reflect-metadata';
import { createDataSource } from '../../src/database/data-source';
import { admin, databaseUrl, randomName } from './db';

/**
 * Creates this run's template database (random name) and migrates it. Each test file then copies it
 * into a database of its own (see test/support/app.ts); the teardown drops them all.
 */
export default async function globalSetup(): Promise<void> {
  const template = randomName('glob_test');
  await admin((c) => c.query(`CREATE DATABASE "${template}"`));
  const ds = await createDataSource({ database: { url: databaseUrl(template), poolSize: 2 } }).initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  process.env.GLOB_TEST_TEMPLATE_DB = template;
}
