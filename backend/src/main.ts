import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApi } from './bootstrap';
import { loadConfig } from './config/config';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApi(config);
  await app.listen(config.port, config.host);
  const url = `http://localhost:${config.port}`;
  new Logger('API').log(`Listening on ${url} — docs at ${url}/api/docs${config.web.dist ? `, web app at ${url}/` : ''}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
