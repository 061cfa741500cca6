import { BadRequestException, Injectable, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { RequestBody, Schemas } from '../../contract/types';
import { openEventStream } from '../../common/event-stream';
import type { ApiKeyIdentity } from '../api-keys/api-keys.repository';
import { CatalogService } from '../catalog/catalog.service';
import { InferenceService } from '../inference/inference.service';
import { sameNamedSampling } from '../inference/sampling';
import { TokenCounter } from '../catalog/token-counter';
import type { TokenLogprob } from '@glob/engine/logprobs';
import { KeyLimits } from './key-limits';
import { failure, FINISH, ReplyRelay, streamFailure } from './reply-relay';

type CompletionRequest = RequestBody<'createCompletion'>;
type Chunk = Schemas['CompletionChunk'];
type Usage = Schemas['ChatCompletionUsage'];

/** The tokens of a completion in OpenAI's legacy shape: parallel lists, candidates as token → log probability. */
function legacyLogprobs(tokens: TokenLogprob[]): Schemas['CompletionLogprobs'] {
  let offset = 0;
  const textOffset = tokens.map((t) => {
    const at = offset;
    offset += t.token.length;
    return at;
  });
  return {
    tokens: tokens.map((t) => t.token),
    token_logprobs: tokens.map((t) => t.logprob),
    top_logprobs: tokens.map((t) => Object.fromEntries(t.top_logprobs.map((c) => [c.token, c.logprob]))),
    text_offset: textOffset,
  };
}

/** OpenAI's default completion limit for a legacy completion (much shorter than a chat reply's). */
export const COMPLETION_DEFAULT_MAX_TOKENS = 16;

/**
 * OpenAI's legacy Completions: the prompt is generated from as it is, with no chat template, on the same job, hold
 * and settlement as a chat completion. The platform counts the prompt's tokens with the model's tokenizer (the text
 * alone): that count is what is held and charged, and prompt and completion limit must fit the model's context.
 */
@Injectable()
export class CompletionsService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly inference: InferenceService,
    private readonly counter: TokenCounter,
    private readonly limits: KeyLimits,
    private readonly relay: ReplyRelay,
  ) {}

  /** Answers a completion on `res`: JSON, or server-sent chunks with `stream`. */
  async complete(key: ApiKeyIdentity, body: CompletionRequest, res: Response): Promise<void> {
    await this.limits.admit(key, res);
    // The spec lets an array hold one prompt only (one completion per request).
    const prompt = typeof body.prompt === 'string' ? body.prompt : body.prompt[0]!;
    const maxTokens = body.max_tokens ?? COMPLETION_DEFAULT_MAX_TOKENS;
    const model = this.catalog.get(body.model);
    if (!model) throw new NotFoundException(`Model ${body.model} not found`);
    if (!this.counter.canCount(model.id))
      throw new ServiceUnavailableException(`Model ${model.id} is not available right now: no worker has it loaded`);
    const promptTokens = await this.counter.countText(model.id, prompt);
    // Refused rather than trimmed: a continuation of a prompt cut at its start would not be what was asked for.
    if (promptTokens + maxTokens > model.contextLength) {
      throw new BadRequestException(
        `prompt: This model's maximum context length is ${model.contextLength} tokens, however you requested ${promptTokens + maxTokens} tokens (${promptTokens} in your prompt; ${maxTokens} for the completion). Please reduce your prompt or completion length.`,
      );
    }
    const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined);
    const streamId = `v1_${randomUUID().replace(/-/g, '')}`;
    const started = await this.inference.start(
      key.userId,
      {
        streamId,
        modelId: model.id,
        prompt,
        // Legacy completions' logprobs is the number of candidates, as the sampling's is.
        params: {
          ...sameNamedSampling(body),
          max_tokens: maxTokens,
          stop,
          ...(typeof body.logprobs === 'number' ? { logprobs: body.logprobs } : {}),
        },
      },
      { apiKeyId: key.id, rawPromptTokens: promptTokens },
    );

    const base = { id: `cmpl-${streamId}`, object: 'text_completion' as const, created: Math.floor(Date.now() / 1000), model: body.model };
    const includeUsage = body.stream_options?.include_usage === true;
    const send = (chunk: Chunk) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const chunk = (choices: Chunk['choices'], usage?: Usage): Chunk => ({ ...base, choices, ...(includeUsage ? { usage: usage ?? null } : {}) });
    if (body.stream) openEventStream(res);
    let text = '';
    const emit = (piece: string) => {
      text += piece;
      if (body.stream && piece) send(chunk([{ text: piece, index: 0, finish_reason: null, logprobs: null }]));
    };
    const outcome = await this.relay.relay(key, started, res, stop, emit);
    if (!outcome) {
      // The client left (the stop was sent on close).
      if (body.stream) res.end();
      return;
    }
    if ('error' in outcome) {
      if (body.stream) return streamFailure(res, outcome.error);
      throw failure(outcome.error);
    }
    const finish = outcome.cut ? 'stop' : FINISH[outcome.done.stop_reason];
    const logprobs = typeof body.logprobs === 'number' && outcome.logprobs ? legacyLogprobs(outcome.logprobs) : null;
    if (body.stream) {
      send(chunk([{ text: '', index: 0, finish_reason: finish, logprobs }]));
      if (includeUsage) send(chunk([], outcome.usage));
      res.write('data: [DONE]\n\n');
      res.end();
      return;
    }
    res.status(200).json({
      ...base,
      choices: [{ text, index: 0, finish_reason: finish, logprobs }],
      usage: outcome.usage,
    } satisfies Schemas['Completion']);
  }
}
