import { Module } from '@nestjs/common';
import { RateLimiter } from '../../common/rate-limit';
import { InferenceModule } from '../inference/inference.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

@Module({
  // Revoking a key stops its running replies through the inference core.
  imports: [InferenceModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService, RateLimiter],
})
export class ApiKeysModule {}
