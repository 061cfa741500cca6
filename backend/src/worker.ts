import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createWorker } from './bootstrap';
import { loadConfig } from './config/config';

async function main(): Promise<void> {
  const config = loadConfig();
  await createWorker(config);
  new Logger('Worker').log('Queue worker started; waiting for jobs');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
