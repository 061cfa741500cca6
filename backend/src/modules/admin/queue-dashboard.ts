import { Injectable } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { type AnyQueue, platformQueues } from '../../jobs/jobs';
import { JobsService } from '../../jobs/jobs.service';
import { CatalogService } from '../catalog/catalog.service';
import { AdminService, QUEUE_DASHBOARD_COOKIE, QUEUE_DASHBOARD_PATH } from './admin.service';

/** The answer to anyone the dashboard does not let in: the API's own 404 for a route that does not exist. */
const NOT_FOUND_BODY = { statusCode: 404, message: 'Not found', error: 'Not Found' };

/** One cookie's value from the Cookie header (the API has no cookie parser: this is its only cookie). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * A change from a page of another origin (the cookie is SameSite=Strict, but a sibling subdomain is the same site):
 * browsers say where a request comes from in Sec-Fetch-Site, or else in Origin.
 */
function crossOrigin(req: Request): boolean {
  const site = req.get('sec-fetch-site');
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = req.get('origin');
  return origin !== undefined && origin !== `${req.protocol}://${req.get('host')}`;
}

/**
 * Bull Board over every queue of the platform (mail, then `inference.<model>` and `verify.<model>` per catalog
 * model), behind a guard: each request needs the dashboard cookie of a current operator (AdminService), else 404.
 * Its own security headers: the board's page loads only its own scripts and styles (same origin) and Google Fonts'
 * stylesheet, so the API's CSP is kept, with framing refused.
 */
@Injectable()
export class QueueDashboard {
  constructor(
    private readonly catalog: CatalogService,
    private readonly jobs: JobsService,
    private readonly admin: AdminService,
  ) {}

  /** The queues the board shows, by name. */
  queueNames(): AnyQueue[] {
    return platformQueues(this.catalog.ids());
  }

  /** The Express handler to mount at QUEUE_DASHBOARD_PATH. */
  router(): express.Router {
    const board = new ExpressAdapter();
    board.setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: this.queueNames().map((name) => new BullMQAdapter(this.jobs.queue(name))),
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'Glob Network queues' } },
    });
    const app = board.getRouter() as express.Application;
    app.disable('x-powered-by');

    const router = express.Router();
    router.use(
      helmet({
        contentSecurityPolicy: { directives: { 'frame-ancestors': ["'none'"] } },
        crossOriginEmbedderPolicy: false,
      }),
    );
    router.use((req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Robots-Tag', 'noindex');
      const safe = req.method === 'GET' || req.method === 'HEAD';
      this.admin
        .mayUseQueueDashboard(cookieValue(req.headers.cookie, QUEUE_DASHBOARD_COOKIE))
        .then((allowed) => (allowed && (safe || !crossOrigin(req)) ? next() : res.status(404).json(NOT_FOUND_BODY)))
        .catch(next);
    });
    router.use(app);
    return router;
  }
}
