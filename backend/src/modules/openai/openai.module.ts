import { Module } from '@nestjs/common';
import { ApiKeyGuard } from '../../auth/api-key.guard';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { InferenceModule } from '../inference/inference.module';
import { KeyLimits } from './key-limits';
import { OpenAiController } from './openai.controller';
import { OpenAiService } from './openai.service';
import { CompletionsService } from './completions.service';
import { ReplyRelay } from './reply-relay';
import { OpenAiEmbeddings } from './embeddings.service';

/** The OpenAI-compatible /v1 operations: API keys in, the inference core behind. */
@Module({
  imports: [InferenceModule, ApiKeysModule],
  controllers: [OpenAiController],
  providers: [OpenAiService, OpenAiEmbeddings, CompletionsService, ReplyRelay, KeyLimits, ApiKeyGuard],
})
export class OpenAiModule {}
