import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './config';

export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Pass a config to override the environment (tests build one per run). */
  static forRoot(config?: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
