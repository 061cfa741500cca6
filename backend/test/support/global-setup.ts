import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, databaseUrl, randomName } from '@glob/testing';
import { createDataSource } from '../../src/database/data-source';

/**
 * Creates this run's template database (random name) and migrates it. Each test file then copies it
 * into a database of its own (see test/support/app.ts); the teardown drops them all.
 */
export default async function globalSetup(): Promise<void> {
  const template = randomName('glob_test');
  await createDatabase(template);
  const ds = await createDataSource({ database: { url: databaseUrl(template), poolSize: 2 } }).initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  process.env.GLOB_TEST_TEMPLATE_DB = template;

  // The tiny model the inference tests run on, generated (deterministically) once per machine by `npm run
  // model:tiny`'s script. In a process of its own: jest's setup runs outside the test environment, where the
  // engine package resolves to its build rather than its source.
  const modelsDir = join(tmpdir(), 'glob-test-models');
  execFileSync(process.execPath, ['--conditions=glob-source', '-r', '@swc-node/register', 'scripts/make-tiny-model.ts', `${modelsDir}/`], {
    cwd: join(__dirname, '..', '..'),
    stdio: 'ignore',
  });
  process.env.MODELS_DIR = modelsDir;
}
