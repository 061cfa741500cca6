import { Module } from '@nestjs/common';
import { ApiKeyGuard } from '../../auth/api-key.guard';
import { RateLimiter } from '../../common/rate-limit';
import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { InferenceModule } from '../inference/inference.module';
import { KeyLimits } from './key-limits';
import { OpenAiController } from './openai.controller';
import { OpenAiService } from './openai.service';
import { CompletionsService } from './completions.service';
import { ReplyRelay } from './reply-relay';
import { OpenAiEmbeddings } from './embeddings.service';

/** The OpenAI-compatible /v1 operations: API keys in, the inference core behind. */
@Module({
  imports: [InferenceModule],
  controllers: [OpenAiController],
  providers: [OpenAiService, OpenAiEmbeddings, CompletionsService, ReplyRelay, KeyLimits, RateLimiter, ApiKeysRepository, ApiKeyGuard],
})
export class OpenAiModule {}
