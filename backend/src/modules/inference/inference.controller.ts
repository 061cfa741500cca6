import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { notYetAvailable } from '../../contract/errors';

/**
 * The inference operations of the spec. Not live yet: each answers 501 with the Error body until the
 * inference issue lands (request validation against the spec already applies).
 */
@Controller('api')
export class InferenceController {
  /** The hosted language models and whether they can be used now */
  @Get('inference/models')
  listModels(): never {
    return notYetAvailable();
  }

  /** Start a generation and stream its tokens */
  @Post('inference/stream/start')
  @HttpCode(200)
  startStream(): never {
    return notYetAvailable();
  }

  /** Read (or re-read) a stream while it lives */
  @Get('inference/stream/:id')
  getStream(): never {
    return notYetAvailable();
  }

  /** Stop a running generation */
  @Post('inference/stream/:id/stop')
  @HttpCode(200)
  stopStream(): never {
    return notYetAvailable();
  }

  /** Generate a completion and wait for it */
  @Post('inference/generate')
  @HttpCode(200)
  generate(): never {
    return notYetAvailable();
  }

  /** Claim the reward of a processed task */
  @Post('tokens/earn')
  claimTaskReward(): never {
    return notYetAvailable();
  }
}
