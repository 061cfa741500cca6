import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { RateLimitGuard } from './common/rate-limit';
import { RateLimitModule } from './common/rate-limit.module';
import type { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { JobsModule } from './jobs/jobs.module';
import { MailModule } from './mail/mail.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AdminModule } from './modules/admin/admin.module';
import { CatalogModule } from './modules/catalog/catalog.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { ChatModule } from './modules/chat/chat.module';
import { InferenceModule } from './modules/inference/inference.module';
import { NodesModule } from './modules/nodes/nodes.module';
import { TrustModule } from './modules/trust/trust.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { OpenAiModule } from './modules/openai/openai.module';
import { SecurityModule } from './modules/security/security.module';
import { SiteModule } from './modules/site/site.module';
import { SystemModule } from './modules/system/system.module';
import { WalletModule } from './modules/wallet/wallet.module';
import { RedisModule } from './redis/redis.module';
import { InferenceProcessor } from './worker/inference.processor';
import { MailProcessor } from './worker/mail.processor';
import { WorkerProbes } from './worker/probe-server';

/** What both processes share: config, PostgreSQL, Redis, the job producer, mail and the model catalog. */
@Module({})
export class CoreModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, RedisModule, JobsModule, MailModule, RateLimitModule, CatalogModule],
    };
  }
}

/** The HTTP API: one module per spec tag. */
@Module({})
export class ApiModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        CoreModule.forRoot(config),
        AuthModule,
        SystemModule,
        SiteModule,
        AccountsModule,
        SecurityModule,
        NotificationsModule,
        WalletModule,
        InferenceModule,
        NodesModule,
        ChatModule,
        ApiKeysModule,
        OpenAiModule,
        AdminModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}

/** The queue-worker process: no HTTP server, only processors. */
@Module({})
export class WorkerModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), InferenceModule, TrustModule, SystemModule],
      providers: [MailProcessor, InferenceProcessor, WorkerProbes],
    };
  }
}
