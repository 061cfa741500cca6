import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { createDataSource } from './data-source';
import { Transactions } from './repository';

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
      this.logger.log('PostgreSQL pool closed');
    }
  }
}

@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => createDataSource(config).initialize(),
    },
    DataSourceCloser,
    Transactions,
  ],
  exports: [DataSource, Transactions],
})
export class DatabaseModule {}
