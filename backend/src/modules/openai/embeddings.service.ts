import { BadRequestException, Injectable, InternalServerErrorException, ServiceUnavailableException } from '@nestjs/common';
import type { Response } from 'express';
import type { RequestBody, Schemas } from '../../contract/types';
import type { ApiKeyIdentity } from '../api-keys/api-keys.repository';
import { EmbeddingsService } from '../inference/embeddings.service';
import { fromBase64 } from '../../common/vectors';
import { InsufficientTokensException } from '../wallet/ledger.service';
import { KeyLimits } from './key-limits';

type EmbeddingRequest = RequestBody<'createEmbedding'>;

/** The longest text embedded, in characters (the spec's limit for a single `input`). */
const MAX_TEXT = 100_000;

/** The request's texts: a string or an array of strings; token ids (numbers, arrays of numbers) are refused by name. */
function texts(input: EmbeddingRequest['input']): string[] {
  const list: unknown[] = Array.isArray(input) ? input : [input];
  for (const [i, item] of list.entries()) {
    if (typeof item === 'number' || Array.isArray(item)) throw new BadRequestException('input: an array of token ids is not supported');
    if (typeof item !== 'string') throw new BadRequestException(`input[${i}]: must be a string`);
    if (!item) throw new BadRequestException(`input[${i}]: must not be empty`);
    if (item.length > MAX_TEXT) throw new BadRequestException(`input[${i}]: must NOT have more than ${MAX_TEXT} characters`);
    if (item.includes('\u0000')) throw new BadRequestException(`input[${i}]: must not contain NUL characters`);
  }
  return list as string[];
}

/**
 * OpenAI's Embeddings in front of the inference core: the texts become one job of the model's queue, held and
 * settled by their counted tokens (billed to the key's owner and counted on the key), answered as OpenAI's list.
 */
@Injectable()
export class OpenAiEmbeddings {
  constructor(
    private readonly embeddings: EmbeddingsService,
    private readonly limits: KeyLimits,
  ) {}

  async create(key: ApiKeyIdentity, body: EmbeddingRequest, res: Response): Promise<Schemas['EmbeddingList']> {
    await this.limits.admit(key, res);
    const input = texts(body.input);
    const model = await this.embeddings.model(body.model);
    if (body.dimensions !== undefined) {
      const own = await this.embeddings.dimensions(model.id);
      if (body.dimensions !== own)
        throw new BadRequestException(`dimensions: ${model.id} answers ${own} values; ${body.dimensions} is not supported`);
    }
    const { streamId, promptTokens, started } = await this.embeddings.start(key.userId, { modelId: model.id, input, apiKeyId: key.id });
    for await (const { event } of started.events(0)) {
      if (event.type === 'done') {
        const vectors = await this.embeddings.vectors(streamId);
        if (!vectors) throw new InternalServerErrorException('The embeddings expired before they were read. Please try again.');
        await this.limits.spend(key.id, promptTokens);
        const base64 = body.encoding_format === 'base64';
        return {
          object: 'list',
          data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? v : Array.from(fromBase64(v)!) })),
          model: model.id,
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
        };
      }
      if (event.type === 'error') {
        if (event.code === 'INSUFFICIENT_TOKENS') throw new InsufficientTokensException(0, 0, event.message);
        if (event.code === 'MODEL_UNAVAILABLE') throw new ServiceUnavailableException(event.message);
        throw new InternalServerErrorException(event.message);
      }
    }
    throw new InternalServerErrorException('The model did not answer in time. Please try again.');
  }
}
