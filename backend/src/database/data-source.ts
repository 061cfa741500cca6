import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config';
import { MIGRATIONS } from './migrations';

export function dataSourceOptions(config: Pick<AppConfig, 'database'>): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.database.url,
    // No entities: SQL lives in repositories (database/repository.ts), with rows typed there.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // The schema is owned by migrations only.
    synchronize: false,
    migrationsRun: false,
    poolSize: config.database.poolSize,
    extra: { connectionTimeoutMillis: config.database.connectTimeoutMs ?? 30_000, application_name: 'glob-network' },
  };
}

export function createDataSource(config: Pick<AppConfig, 'database'>): DataSource {
  return new DataSource(dataSourceOptions(config));
}
