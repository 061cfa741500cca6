import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { RequestBody, Schemas } from '../../contract/types';
import { type CatalogModel, modelFeatures } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { toGlob, UNITS_PER_GLOB } from '../../common/units';
import type { ApiKeyIdentity } from '../api-keys/api-keys.repository';
import { InferenceService } from '../inference/inference.service';
import { sameNamedSampling } from '../inference/sampling';
import { KeyLimits } from './key-limits';
import { openEventStream } from '../../common/event-stream';
import type { ToolFormat } from '@glob/engine/tool-format';
import { TokenCounter } from '../catalog/token-counter';
import { AnswerParts, EnvelopeReader, type EnvelopePiece, planReply } from './tool-calls';
import { type ErrorEvent, failure, FINISH, ReplyRelay, streamFailure } from './reply-relay';

type ChatRequest = RequestBody<'createChatCompletion'>;
type Chunk = Schemas['ChatCompletionChunk'];
type FinishReason = Schemas['FinishReason'];
type Usage = Schemas['ChatCompletionUsage'];
type ChoiceLogprobs = Schemas['ChoiceLogprobs'];
type ModelExtensions = Pick<Schemas['OpenAiModel'], 'created' | 'context_length' | 'pricing' | 'price_per_million_tokens' | 'supported_features'>;

/** A catalog model's fields in `GET /v1/models` besides its id and load: its date, context, prices and features. */
function modelExtensions(m: CatalogModel): ModelExtensions {
  const perToken = String(toGlob(m.priceUnits));
  return {
    created: m.created,
    context_length: m.contextLength,
    pricing: { prompt: perToken, completion: perToken, currency: 'GLOB' },
    price_per_million_tokens: (m.priceUnits * 1_000_000) / UNITS_PER_GLOB,
    supported_features: modelFeatures(m),
  };
}

/**
 * OpenAI's Chat Completions in front of the one inference core: a request becomes the same job, hold and
 * settlement as a chat reply (billed to the key's owner and counted on the key), and its events become OpenAI's
 * JSON answer or `chat.completion.chunk` events.
 */
@Injectable()
export class OpenAiService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly inference: InferenceService,
    private readonly limits: KeyLimits,
    private readonly relay: ReplyRelay,
    private readonly counter: TokenCounter,
  ) {}

  async models(key: ApiKeyIdentity, res: Response): Promise<Schemas['OpenAiModelList']> {
    await this.limits.admit(key, res);
    const { models } = await this.inference.listModels();
    return {
      object: 'list',
      data: models
        .filter((m) => m.status === 'available')
        .map((m) => ({
          id: m.id,
          object: 'model',
          owned_by: 'glob-network',
          waiting: m.waiting,
          running: m.running,
          ...modelExtensions(this.catalog.get(m.id)!),
        })),
    };
  }

  /** Answers a chat completion on `res`: JSON, or server-sent chunks with `stream`. */
  async complete(key: ApiKeyIdentity, body: ChatRequest, res: Response): Promise<void> {
    await this.limits.admit(key, res);
    const plan = planReply(body, await this.nativeToolFormat(body));
    const limits = [body.max_tokens, body.max_completion_tokens].filter((n): n is number => typeof n === 'number');
    const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined);
    const streamId = `v1_${randomUUID().replace(/-/g, '')}`;
    const started = await this.inference.start(
      key.userId,
      {
        streamId,
        modelId: body.model,
        messages: plan.turns,
        params: {
          ...sameNamedSampling(body),
          ...(limits.length ? { max_tokens: Math.min(...limits) } : {}),
          stop,
          ...(plan.kind !== 'text' ? { json_schema: plan.jsonSchema } : {}),
          ...(plan.kind === 'tools' && plan.envelope.frame ? { json_frame: plan.envelope.frame } : {}),
          ...(body.logprobs ? { logprobs: body.top_logprobs ?? 0 } : {}),
        },
      },
      { apiKeyId: key.id },
    );

    const base = { id: `chatcmpl-${streamId}`, created: Math.floor(Date.now() / 1000), model: body.model, system_fingerprint: null };
    const out = body.stream ? this.streamWriter(res, base, body.stream_options?.include_usage === true) : null;
    // The answer as it is read: its text, or the tool call its envelope makes; streamed piece by piece as it comes.
    const answer = new AnswerParts();
    const take = (pieces: EnvelopePiece[]) => {
      for (const piece of pieces) {
        answer.add(piece);
        if (!out) continue;
        if ('content' in piece) out.content(piece.content);
        else if ('call' in piece) out.toolCall({ index: 0, id: piece.call.id, type: 'function', function: { name: piece.call.name, arguments: '' } });
        else out.toolCall({ index: 0, function: { arguments: piece.arguments } });
      }
    };
    const envelope = plan.kind === 'tools' ? new EnvelopeReader(plan.envelope) : null;
    const emit = (t: string) => take(envelope ? envelope.push(t) : [{ content: t }]);
    const outcome = await this.relay.relay(key, started, res, stop, emit);
    if (outcome && 'done' in outcome) {
      const { done: event, usage } = outcome;
      if (envelope) take(envelope.end());
      const call = answer.toolCall;
      const finish: FinishReason = outcome.cut ? 'stop' : call && event.stop_reason === 'stop' ? 'tool_calls' : FINISH[event.stop_reason];
      // A reply stopped from outside may have ended without them.
      const logprobs: ChoiceLogprobs | null = body.logprobs ? { content: outcome.logprobs ?? null, refusal: null } : null;
      if (out) return out.end(finish, usage, logprobs);
      res.status(200).json({
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: call
              ? { role: 'assistant', content: null, refusal: null, tool_calls: [call] }
              : { role: 'assistant', content: answer.text, refusal: null },
            finish_reason: finish,
            logprobs,
          },
        ],
        usage,
      } satisfies Schemas['ChatCompletion']);
      return;
    }
    if (outcome) {
      if (out) return out.fail(outcome.error);
      throw failure(outcome.error);
    }
    // The reader stopped: the client left (the stop was sent on close).
    if (out) res.end();
  }

  /**
   * The model family's native tool-call format, for a request that has tools or tool turns (read from the model's
   * template by the platform's tokenizer); null otherwise, and for a model the platform cannot read.
   */
  private async nativeToolFormat(body: ChatRequest): Promise<ToolFormat | null> {
    const tooling = !!body.tools?.length || body.messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && !!m.tool_calls?.length));
    if (!tooling || !this.catalog.get(body.model) || !this.counter.canCount(body.model)) return null;
    return this.counter.toolFormat(body.model);
  }

  /** Writes `chat.completion.chunk` events: a first one with the role, one per piece of text, the end, `[DONE]`. */
  private streamWriter(res: Response, base: Omit<Chunk, 'object' | 'choices'>, includeUsage: boolean) {
    openEventStream(res);
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (choices: Chunk['choices'], usage?: Usage): Chunk => ({
      ...base,
      object: 'chat.completion.chunk',
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    });
    send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]));
    return {
      content: (content: string) => send(chunk([{ index: 0, delta: { content }, finish_reason: null, logprobs: null }])),
      toolCall: (delta: Schemas['ToolCallDelta']) => send(chunk([{ index: 0, delta: { tool_calls: [delta] }, finish_reason: null, logprobs: null }])),
      end: (finish: FinishReason, usage: Usage, logprobs: ChoiceLogprobs | null) => {
        send(chunk([{ index: 0, delta: {}, finish_reason: finish, logprobs }]));
        if (includeUsage) send(chunk([], usage));
        res.write('data: [DONE]\n\n');
        res.end();
      },
      fail: (event: ErrorEvent) => streamFailure(res, event),
    };
  }
}
