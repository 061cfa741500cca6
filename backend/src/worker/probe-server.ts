import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { registry, scrapeAccess, startProcessMetrics } from '../observability/metrics';
import { SystemService } from '../modules/system/system.service';
import { InferenceProcessor } from './inference.processor';

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
};

/**
 * The worker's own small HTTP server on WORKER_PORT (it has no API): GET /metrics behind METRICS_TOKEN, and the same
 * liveness and readiness paths as the API, ready only while PostgreSQL and Redis answer and a model is loaded.
 * Plain node:http: three fixed routes need no framework.
 */
@Injectable()
export class WorkerProbes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WorkerProbes');
  private server: Server | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly system: SystemService,
    private readonly inference: InferenceProcessor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.workerPort === undefined) return;
    startProcessMetrics('worker');
    const server = createServer((req, res) => {
      this.answer(req, res).catch((err: Error) => json(res, 500, { statusCode: 500, message: err.message, error: 'Internal Server Error' }));
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.config.workerPort, this.config.host, resolve));
    this.server = server;
    this.logger.log(`Metrics and health probes on port ${(server.address() as AddressInfo).port}`);
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return json(res, 405, { statusCode: 405, message: `Cannot ${req.method} ${path}`, error: 'Method Not Allowed' });
    if (path === '/api/health/live') return json(res, 200, this.system.liveness());
    if (path === '/api/health/ready') {
      // A mail-only worker (WORKER_MODELS=none) is ready without a model.
      const mailOnly = this.config.inference.workerModels?.join() === 'none';
      const health = await this.system.readiness(mailOnly ? undefined : this.inference.models);
      return json(res, health.status === 'ok' ? 200 : 503, health);
    }
    if (path === '/metrics') {
      const access = scrapeAccess(this.config.metricsToken, req.headers.authorization);
      if (access === 401) return json(res, 401, { statusCode: 401, message: 'A valid metrics token is required.', error: 'Unauthorized' });
      if (access === 200) {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(await registry.metrics());
        return;
      }
    }
    json(res, 404, { statusCode: 404, message: `Cannot GET ${path}`, error: 'Not Found' });
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
