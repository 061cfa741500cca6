/*
 * npm run release:publish -- <release dir> [--base-url URL] [--public-key FILE]
 * Publishes the signed release `make release` wrote (.data/release/<version>/): checked against its manifest, its files
 * copied into RELEASES_DIR (or, with --base-url, linked as <URL>/<name>), then served by GET /api/releases/latest.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/config';
import { createDataSource } from '../../database/data-source';
import { Transactions } from '../../database/repository';
import { ReleasesRepository } from './releases.repository';
import { ReleasesService, type PublishRequest } from './releases.service';

const USAGE = 'usage: npm run release:publish -- <release dir> [--base-url URL] [--public-key FILE]';

/** The command line as a publish request; paths are relative to where npm was run (npm runs the script in backend/). */
export function parsePublishArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): PublishRequest {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'base-url': { type: 'string' }, 'public-key': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const from = env.INIT_CWD ?? process.cwd();
  return {
    dir: resolve(from, positionals[0]!),
    baseUrl: values['base-url'],
    publicKeyFile: values['public-key'] && resolve(from, values['public-key']),
    publicKeyPem: env.RELEASE_PUBLIC_KEY,
  };
}

async function main(): Promise<void> {
  const request = parsePublishArgs(process.argv.slice(2));
  const config = loadConfig();
  const dataSource = await createDataSource(config).initialize();
  try {
    const published = await new ReleasesService(new ReleasesRepository(dataSource), new Transactions(dataSource), config).publish(request);
    console.log(`Signature verified with ${published.verifiedWith}`);
    if (published.ownKey) {
      console.log(
        '  (the release folder’s own key: it proves the files match the manifest, not who signed it; give --public-key or RELEASE_PUBLIC_KEY for that)',
      );
    }
    // A stored file's address is the serving API's (its PUBLIC_API_URL), not this command's: only the path is sure here.
    for (const a of published.assets)
      console.log(
        `  ${a.name} (${a.size} bytes) ${a.stored ? `stored, served by the API at ${new URL(a.download_url).pathname}` : `linked to ${a.download_url}`}`,
      );
    console.log(`Published ${published.version} with ${published.assets.length} file(s)`);
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
