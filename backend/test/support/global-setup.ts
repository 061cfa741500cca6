import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataSource } from '../../src/database/data-source';
import { TINY_MODEL_FILE } from '../../src/modules/inference/catalog';
import { validateGguf } from '../../src/engine/gguf-validate';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
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

  // The tiny model the inference tests run on, generated (deterministically) once per machine.
  const modelsDir = join(tmpdir(), 'glob-test-models');
  mkdirSync(modelsDir, { recursive: true });
  const model = join(modelsDir, TINY_MODEL_FILE);
  try {
    await validateGguf(model);
  } catch {
    await writeTinyLlamaGguf(model);
  }
  process.env.MODELS_DIR = modelsDir;
}
