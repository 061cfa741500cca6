import { HttpException, HttpStatus, Injectable, InternalServerErrorException, ServiceUnavailableException } from '@nestjs/common';
import type { Response } from 'express';
import { cutLogprobs, type TokenLogprob } from '@glob/engine/logprobs';
import { StopSequences } from '@glob/engine/stop-sequences';
import type { Schemas } from '../../contract/types';
import type { ApiKeyIdentity } from '../api-keys/api-keys.repository';
import { InferenceService, type StartedStream } from '../inference/inference.service';
import type { StreamEvent } from '../inference/streams';
import { InsufficientTokensException } from '../wallet/ledger.service';
import { KeyLimits } from './key-limits';

export type DoneEvent = Extract<StreamEvent, { type: 'done' }>;
export type ErrorEvent = Extract<StreamEvent, { type: 'error' }>;
type Usage = Schemas['ChatCompletionUsage'];

/** `abort` is a stop sequence or a client that left: either way the answer ended where it did. */
export const FINISH: Record<DoneEvent['stop_reason'], 'stop' | 'length'> = {
  stop: 'stop',
  length: 'length',
  budget: 'length',
  abort: 'stop',
};

/** A reply that failed after it was queued, as the HTTP error a client of the non-streamed answer gets. */
export function failure(event: ErrorEvent): HttpException {
  if (event.code === 'INSUFFICIENT_TOKENS') return new InsufficientTokensException(0, 0, event.message);
  if (event.code === 'MODEL_UNAVAILABLE') return new ServiceUnavailableException(event.message);
  return new InternalServerErrorException(event.message);
}

/** OpenAI's code for an error event on a stream. */
const STREAM_ERROR_CODES: Record<ErrorEvent['code'], string> = {
  INSUFFICIENT_TOKENS: 'insufficient_quota',
  MODEL_UNAVAILABLE: 'model_not_available',
  WORKER_FAILED: 'server_error',
  TIMEOUT: 'server_error',
  INTERNAL_ERROR: 'server_error',
};

/** A failure after a stream started, as OpenAI streams one (a `data:` line with `error`); the stream ends. */
export function streamFailure(res: Response, event: ErrorEvent): void {
  const status = event.code === 'INSUFFICIENT_TOKENS' ? HttpStatus.PAYMENT_REQUIRED : HttpStatus.INTERNAL_SERVER_ERROR;
  const body: Schemas['ChatCompletionStreamError'] = {
    error: {
      message: event.message,
      type: status === 402 ? 'insufficient_quota' : 'server_error',
      param: null,
      code: STREAM_ERROR_CODES[event.code],
    },
  };
  res.write(`data: ${JSON.stringify(body)}\n\n`);
  res.end();
}

/**
 * How a reply's events ended: done (with whether a stop sequence cut it, and the tokens of the text emitted when
 * asked for), failed, or not at all (the client left).
 */
export type RelayOutcome = { done: DoneEvent; usage: Usage; cut: boolean; logprobs?: TokenLogprob[] } | { error: ErrorEvent } | null;

/**
 * The part every /v1 generation shares once its job is queued: a client that leaves stops it (and is charged only
 * for what was generated until then); the text goes to `emit` as it comes, cut at the first stop sequence (and the
 * generator told to stop, in case it does not know them); the tokens used are counted on the key when it ends.
 */
@Injectable()
export class ReplyRelay {
  constructor(
    private readonly inference: InferenceService,
    private readonly limits: KeyLimits,
  ) {}

  async relay(
    key: ApiKeyIdentity,
    started: StartedStream,
    res: Response,
    stop: string[] | undefined,
    emit: (text: string) => void,
  ): Promise<RelayOutcome> {
    const { streamId } = started;
    const reader = new AbortController();
    let answered = false;
    res.on('close', () => {
      reader.abort();
      if (!answered) void this.inference.stop(key.userId, streamId).catch(() => undefined);
    });
    const cut = stop?.length ? new StopSequences(stop, emit) : null;
    let stopped = false;
    for await (const { event } of started.events(0, reader.signal)) {
      if (event.type === 'token') {
        if (!cut) emit(event.text);
        else if (cut.push(event.text) && !stopped) {
          stopped = true;
          await this.inference.stop(key.userId, streamId);
        }
      } else if (event.type === 'done') {
        cut?.flush();
        const usage: Usage = event.usage;
        await this.limits.spend(key.id, usage.total_tokens);
        answered = true;
        // A generator that did not know the stop sequence scored the text past it: its tokens are cut where the text was.
        const logprobs = event.logprobs && cut?.matched ? cutLogprobs(event.logprobs, cut.shown) : event.logprobs;
        return { done: event, usage, cut: cut?.matched ?? false, ...(logprobs ? { logprobs } : {}) };
      } else {
        answered = true;
        return { error: event };
      }
    }
    return null;
  }
}
