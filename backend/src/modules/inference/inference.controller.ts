import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { openEventStream } from '../../common/event-stream';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { InferenceService, StartedStream } from './inference.service';
import { RewardsService } from '../rewards/rewards.service';
import { TasksService } from './tasks.service';

/**
 * Writes a stream as Server-Sent Events: `id: n` + `data: {json}` per event (the event's JSON as stored), keep-alive
 * comments between. The events that arrive together go out in one write (the socket corked until the next tick).
 */
async function sendEvents(res: Response, stream: StartedStream, after: number): Promise<void> {
  openEventStream(res);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  try {
    for await (const { id, raw } of stream.events(after, abort.signal)) {
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      res.write(`id: ${id}\ndata: ${raw}\n\n`);
    }
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}

@Controller('api')
export class InferenceController {
  constructor(
    private readonly inference: InferenceService,
    private readonly tasks: TasksService,
    private readonly rewards: RewardsService,
  ) {}

  @Get('inference/models')
  listModels(): Promise<ResponseBody<'listModels', 200>> {
    return this.inference.listModels();
  }

  @Post('inference/stream/start')
  @HttpCode(200)
  async startStream(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'startStream'>, @Res() res: Response): Promise<void> {
    const stream = await this.inference.start(user.id, body);
    await sendEvents(res, stream, 0);
  }

  @Get('inference/stream/:id')
  async getStream(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Res() res: Response,
    @Headers('last-event-id') lastEventId?: string,
  ): Promise<void> {
    const stream = await this.inference.replay(user.id, id);
    await sendEvents(res, stream, Number(lastEventId ?? 0) || 0);
  }

  @Post('inference/stream/:id/stop')
  @HttpCode(200)
  stopStream(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<ResponseBody<'stopStream', 200>> {
    return this.inference.stop(user.id, id);
  }

  @Post('inference/generate')
  @HttpCode(200)
  generate(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'generate'>): Promise<ResponseBody<'generate', 200>> {
    return this.inference.generate(user.id, body);
  }

  @Post('tokens/earn')
  @HttpCode(201)
  claimTaskReward(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'claimTaskReward'>): Promise<ResponseBody<'claimTaskReward', 201>> {
    return this.rewards.claim(user.id, body.task_id);
  }
}
