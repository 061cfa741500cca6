import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export function dataSourceOptions(config: Pick<AppConfig, 'database'>): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.database.url,
    entities: ENTITIES,
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
