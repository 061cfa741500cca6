/*
 * npm run release:publish -- <release.json>
 *   or: npm run release:publish -- --version 0.2.0 --date 2026-12-01 [--notice "…"] [--changelog URL]
 *        --asset "name|platform|arch|size|url" [--asset …]
 * Adds a release (and its files) that GET /api/releases/latest then serves.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../../config/config';
import { createDataSource } from '../../database/data-source';
import { Transactions } from '../../database/repository';
import { ReleasesRepository } from './releases.repository';
import { NewRelease, ReleasesService } from './releases.service';

const asset = z.object({
  name: z.string().min(1).max(255),
  download_url: z.url().max(2048),
  platform: z.enum(['windows', 'macos', 'linux', 'linux-deb']),
  arch: z.enum(['x64', 'arm64', 'universal']),
  size: z.coerce.number().int().min(0),
});
const release = z.object({
  version: z.string().regex(/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, 'a semantic version such as 0.2.0 or 0.2.0-beta1'),
  released_at: z.iso.datetime({ offset: true }).or(z.iso.date()),
  notice: z.string().max(1000).nullish(),
  changelog_url: z.url().nullish(),
  assets: z.array(asset).min(1),
});

export function parseReleaseArgs(argv: string[]): NewRelease {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      version: { type: 'string' },
      date: { type: 'string' },
      notice: { type: 'string' },
      changelog: { type: 'string' },
      asset: { type: 'string', multiple: true },
    },
  });
  const input = positionals[0]
    ? JSON.parse(readFileSync(positionals[0], 'utf8'))
    : {
        version: values.version,
        released_at: values.date ?? new Date().toISOString(),
        notice: values.notice,
        changelog_url: values.changelog,
        assets: (values.asset ?? []).map((a) => {
          const [name, platform, arch, size, download_url] = a.split('|');
          return { name, platform, arch, size, download_url };
        }),
      };
  const parsed = release.safeParse(input);
  if (!parsed.success) {
    throw new Error(`Invalid release:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return parsed.data;
}

async function main(): Promise<void> {
  const input = parseReleaseArgs(process.argv.slice(2));
  const dataSource = await createDataSource(loadConfig()).initialize();
  try {
    const published = await new ReleasesService(new ReleasesRepository(dataSource), new Transactions(dataSource)).publish(input);
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
