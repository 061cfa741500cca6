import { Body, Controller, Delete, Get, HttpCode, Ip, Param, Patch, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import { CurrentNode, NodeOperation } from '../../auth/node-credential.guard';
import { Public } from '../../auth/public.decorator';
import { NdjsonAnswer, ndjsonLines } from '../../common/ndjson';
import { RateLimit, RateLimitRule } from '../../common/rate-limit';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { ModelFilesService } from '../catalog/model-files.service';
import { NodeAgentPackageService } from './node-agent-package.service';
import { NodeCatalogService } from './node-catalog.service';
import { NodeClaimsService } from './node-claims.service';
import { NODE_EVENTS_BODY_MAX_BYTES, NODE_EVENTS_TOO_LARGE, NodeJobEventsService } from './node-job-events.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { NodeSelfService } from './node-self.service';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { NodesService } from './nodes.service';
import { DevicePairingService } from './device-pairing.service';
import { PoolsService } from './pools.service';
import type { NodeIdentity } from './provider-nodes.repository';

/** Registrations per IP; node calls per credential (counted before it is checked, so by its hash). */
const REGISTER: RateLimitRule = { name: 'node-register', limit: (c) => c.rateLimits.nodeRegister };
const NODE: RateLimitRule = {
  name: 'node',
  limit: (c) => c.rateLimits.node,
  key: (req: Request) => createHash('sha256').update(String(req.headers.authorization)).digest('hex').slice(0, 32),
};
const RANGE_NOT_SATISFIABLE = { statusCode: 416, message: 'The requested range lies outside the file.', error: 'Range Not Satisfiable' };
const CATALOG: RateLimitRule = { name: 'node-catalog', limit: (c) => c.rateLimits.nodeCatalog };
/** Device codes asked for, and polls, per IP. */
const DEVICE_CODE: RateLimitRule = { name: 'device-code', limit: (c) => c.rateLimits.deviceCode };
const DEVICE_POLL: RateLimitRule = { name: 'device-code-poll', limit: (c) => c.rateLimits.deviceCodePoll };

@Controller('api')
export class NodesController {
  constructor(
    private readonly nodes: NodesService,
    private readonly claims: NodeClaimsService,
    private readonly jobEvents: NodeJobEventsService,
    private readonly verifyJobs: NodeVerifyJobsService,
    private readonly holds: NodeJobHoldsService,
    private readonly pools: PoolsService,
    private readonly catalog: NodeCatalogService,
    private readonly modelFiles: ModelFilesService,
    private readonly agentPackage: NodeAgentPackageService,
    private readonly pairing: DevicePairingService,
    private readonly self: NodeSelfService,
  ) {}

  @Public()
  @Get('nodes/catalog')
  @RateLimit(CATALOG)
  getNodeCatalog(): Promise<ResponseBody<'getNodeCatalog', 200>> {
    return this.catalog.list();
  }

  /**
   * Express's sendFile answers Range requests (206, 416) and conditional ones, so an interrupted pull resumes. The
   * file is named relative to its directory: the models directory may itself sit under a dot directory (`.data`).
   */
  @Public()
  @Get('nodes/catalog/files/:file')
  @RateLimit(CATALOG)
  async downloadModelFile(@Param('file') file: string, @Res() res: Response): Promise<void> {
    const path = await this.modelFiles.ownCopy(file);
    const options = { root: dirname(path), acceptRanges: true, dotfiles: 'deny' as const, headers: { 'Content-Type': 'application/octet-stream' } };
    res.sendFile(basename(path), options, (err) => {
      if (!err || res.headersSent) return;
      const status = (err as { status?: number }).status === 416 ? 416 : 404;
      const body = status === 416 ? RANGE_NOT_SATISFIABLE : { statusCode: 404, message: 'No such model file', error: 'Not Found' };
      res.status(status).json(body);
    });
  }

  /** The node agent package the pairing command runs (npx downloads it whole). */
  @Public()
  @Get('nodes/agent/:file')
  @RateLimit(CATALOG)
  async downloadNodeAgent(@Param('file') file: string, @Res() res: Response): Promise<void> {
    const path = await this.agentPackage.file(file);
    res.sendFile(basename(path), { root: dirname(path), headers: { 'Content-Type': 'application/gzip' } }, (err) => {
      if (err && !res.headersSent) res.status(404).json({ statusCode: 404, message: 'No such node agent package', error: 'Not Found' });
    });
  }

  @Get('nodes')
  listNodes(@CurrentUser() user: AuthUser): Promise<ResponseBody<'listNodes', 200>> {
    return this.nodes.list(user.id);
  }

  @Post('nodes/join-tokens')
  createJoinToken(@CurrentUser() user: AuthUser): Promise<ResponseBody<'createJoinToken', 201>> {
    return this.nodes.createJoinToken(user.id);
  }

  @Public()
  @Post('nodes/device-codes')
  @RateLimit(DEVICE_CODE)
  createDeviceCode(@Body() body: RequestBody<'createDeviceCode'>, @Ip() ip: string): Promise<ResponseBody<'createDeviceCode', 201>> {
    return this.pairing.create(body, ip ?? null);
  }

  @Public()
  @Post('nodes/device-codes/token')
  @HttpCode(200)
  @RateLimit(DEVICE_POLL)
  exchangeDeviceCode(@Body() body: RequestBody<'exchangeDeviceCode'>): Promise<ResponseBody<'exchangeDeviceCode', 200>> {
    return this.pairing.exchange(body);
  }

  @Get('nodes/device-codes/:userCode')
  getPendingDevice(@CurrentUser() user: AuthUser, @Param('userCode') userCode: string): Promise<ResponseBody<'getPendingDevice', 200>> {
    return this.pairing.pending(user.id, userCode);
  }

  @Post('nodes/device-codes/:userCode')
  @HttpCode(200)
  approvePendingDevice(@CurrentUser() user: AuthUser, @Param('userCode') userCode: string): Promise<ResponseBody<'approvePendingDevice', 200>> {
    return this.pairing.approve(user.id, userCode);
  }

  @Public()
  @Post('nodes/register')
  @RateLimit(REGISTER)
  registerNode(@Body() body: RequestBody<'registerNode'>): Promise<ResponseBody<'registerNode', 201>> {
    return this.nodes.register(body);
  }

  @Get('nodes/pools')
  listPools(@CurrentUser() user: AuthUser): Promise<ResponseBody<'listPools', 200>> {
    return this.pools.list(user.id);
  }

  @Post('nodes/pools')
  createPool(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'createPool'>): Promise<ResponseBody<'createPool', 201>> {
    return this.pools.create(user.id, body);
  }

  @Delete('nodes/pools/:poolId')
  @HttpCode(204)
  deletePool(@CurrentUser() user: AuthUser, @Param('poolId') poolId: string): Promise<void> {
    return this.pools.remove(user.id, poolId);
  }

  @Get('nodes/earnings/:id')
  getNodeEarnings(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<ResponseBody<'getNodeEarnings', 200>> {
    return this.nodes.earnings(user.id, id);
  }

  // The node's own control panel. Declared before the `nodes/:id` routes, which would otherwise take "self" for an id.
  @NodeOperation()
  @Get('nodes/self')
  @RateLimit(NODE)
  getNodeSelf(@CurrentNode() node: NodeIdentity): Promise<ResponseBody<'getNodeSelf', 200>> {
    return this.self.get(node);
  }

  @NodeOperation()
  @Patch('nodes/self')
  @RateLimit(NODE)
  updateNodeSelf(@CurrentNode() node: NodeIdentity, @Body() body: RequestBody<'updateNodeSelf'>): Promise<ResponseBody<'updateNodeSelf', 200>> {
    return this.self.update(node, body);
  }

  @NodeOperation()
  @Post('nodes/self/pools')
  @RateLimit(NODE)
  createNodeSelfPool(
    @CurrentNode() node: NodeIdentity,
    @Body() body: RequestBody<'createNodeSelfPool'>,
  ): Promise<ResponseBody<'createNodeSelfPool', 201>> {
    return this.self.createPool(node, body);
  }

  @NodeOperation()
  @Delete('nodes/self/pools/:poolId')
  @HttpCode(204)
  @RateLimit(NODE)
  leaveNodeSelfPool(@CurrentNode() node: NodeIdentity, @Param('poolId') poolId: string): Promise<void> {
    return this.self.leavePool(node, poolId);
  }

  @Patch('nodes/:id')
  updateNode(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Body() body: RequestBody<'updateNode'>,
  ): Promise<ResponseBody<'updateNode', 200>> {
    return this.nodes.update(user.id, id, body);
  }

  @Delete('nodes/:id')
  @HttpCode(204)
  revokeNode(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    return this.nodes.revoke(user.id, id);
  }

  @NodeOperation()
  @Post('nodes/heartbeat')
  @HttpCode(200)
  @RateLimit(NODE)
  nodeHeartbeat(
    @CurrentNode() node: NodeIdentity,
    @Body() body: RequestBody<'nodeHeartbeat'>,
    @Ip() ip: string,
  ): Promise<ResponseBody<'nodeHeartbeat', 200>> {
    return this.nodes.heartbeat(node, body, ip);
  }

  /** 200 with a job, or 204 when none came within the wait. */
  @NodeOperation()
  @Post('nodes/jobs/claim')
  @HttpCode(200)
  @RateLimit(NODE)
  async claimNodeJob(
    @CurrentNode() node: NodeIdentity,
    @Body() body: RequestBody<'claimNodeJob'> | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ResponseBody<'claimNodeJob', 200> | undefined> {
    // A node that hangs up (stopped, killed, cut off) must not be handed a job it will never see.
    const hungUp = new AbortController();
    res.on('close', () => res.writableFinished || hungUp.abort());
    const job = await this.claims.claim(node, body, hungUp.signal);
    if (!job) res.status(204);
    return job ?? undefined;
  }

  @NodeOperation()
  @Post('nodes/jobs/:jobId/events')
  @HttpCode(200)
  @RateLimit(NODE)
  sendNodeJobEvents(
    @CurrentNode() node: NodeIdentity,
    @Param('jobId') jobId: string,
    @Body() body: RequestBody<'sendNodeJobEvents'>,
  ): Promise<ResponseBody<'sendNodeJobEvents', 200>> {
    return this.jobEvents.events(node, jobId, body);
  }

  @NodeOperation()
  @Post('nodes/jobs/:jobId/events/stream')
  @RateLimit(NODE)
  streamNodeJobEvents(@CurrentNode() node: NodeIdentity, @Param('jobId') jobId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.jobEvents.stream(node, jobId, ndjsonLines(req, NODE_EVENTS_BODY_MAX_BYTES, NODE_EVENTS_TOO_LARGE), new NdjsonAnswer(res));
  }

  @NodeOperation()
  @Post('nodes/jobs/:jobId/embeddings')
  @HttpCode(204)
  @RateLimit(NODE)
  sendNodeJobEmbeddings(
    @CurrentNode() node: NodeIdentity,
    @Param('jobId') jobId: string,
    @Body() body: RequestBody<'sendNodeJobEmbeddings'>,
  ): Promise<void> {
    return this.jobEvents.embeddingsOf(node, jobId, body);
  }

  @NodeOperation()
  @Post('nodes/jobs/:jobId/recomputation')
  @HttpCode(204)
  @RateLimit(NODE)
  sendNodeJobRecomputation(
    @CurrentNode() node: NodeIdentity,
    @Param('jobId') jobId: string,
    @Body() body: RequestBody<'sendNodeJobRecomputation'>,
  ): Promise<void> {
    return this.verifyJobs.recomputationOf(node, jobId, body);
  }

  @NodeOperation()
  @Post('nodes/jobs/:jobId/return')
  @HttpCode(204)
  @RateLimit(NODE)
  returnNodeJob(@CurrentNode() node: NodeIdentity, @Param('jobId') jobId: string): Promise<void> {
    return this.holds.giveBack(node, jobId);
  }
}
