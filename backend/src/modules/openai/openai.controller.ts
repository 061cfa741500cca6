import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeyOperation, CurrentApiKey } from '../../auth/api-key.guard';
import type { RequestBody, ResponseBody } from '../../contract/types';
import type { ApiKeyIdentity } from '../api-keys/api-keys.repository';
import { OpenAiService } from './openai.service';
import { CompletionsService } from './completions.service';
import { OpenAiEmbeddings } from './embeddings.service';

@Controller('v1')
@ApiKeyOperation()
export class OpenAiController {
  constructor(
    private readonly openai: OpenAiService,
    private readonly embeddings: OpenAiEmbeddings,
    private readonly completions: CompletionsService,
  ) {}

  @Post('embeddings')
  @HttpCode(200)
  createEmbedding(
    @CurrentApiKey() key: ApiKeyIdentity,
    @Body() body: RequestBody<'createEmbedding'>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResponseBody<'createEmbedding', 200>> {
    return this.embeddings.create(key, body, res);
  }

  @Get('models')
  listOpenAiModels(@CurrentApiKey() key: ApiKeyIdentity, @Res({ passthrough: true }) res: Response): Promise<ResponseBody<'listOpenAiModels', 200>> {
    return this.openai.models(key, res);
  }

  /** Answers on `res` itself: JSON, or an event stream with `stream`. */
  @Post('chat/completions')
  @HttpCode(200)
  createChatCompletion(@CurrentApiKey() key: ApiKeyIdentity, @Body() body: RequestBody<'createChatCompletion'>, @Res() res: Response): Promise<void> {
    return this.openai.complete(key, body, res);
  }

  /** Answers on `res` itself: JSON, or an event stream with `stream`. */
  @Post('completions')
  @HttpCode(200)
  createCompletion(@CurrentApiKey() key: ApiKeyIdentity, @Body() body: RequestBody<'createCompletion'>, @Res() res: Response): Promise<void> {
    return this.completions.complete(key, body, res);
  }
}
