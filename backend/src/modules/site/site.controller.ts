import { Public } from '../../auth/public.decorator';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { basename, dirname } from 'node:path';
import { RateLimit } from '../../common/rate-limit';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { ContactService } from './contact.service';
import { DownloadsService } from './downloads.service';
import { NO_SUCH_FILE, ReleasesService } from './releases.service';

const RANGE_NOT_SATISFIABLE = { statusCode: 416, message: 'The requested range lies outside the file.', error: 'Range Not Satisfiable' };

@Public()
@Controller('api')
export class SiteController {
  constructor(
    private readonly releases: ReleasesService,
    private readonly downloads: DownloadsService,
    private readonly contact: ContactService,
  ) {}

  @Get('releases/latest')
  getLatestRelease(): Promise<ResponseBody<'getLatestRelease', 200>> {
    return this.releases.latest();
  }

  @Get('releases/latest/manifest')
  getLatestReleaseManifest(): Promise<ResponseBody<'getLatestReleaseManifest', 200>> {
    return this.releases.latestManifest();
  }

  /**
   * Express's sendFile sets Content-Length and answers Range requests (206, 416), so an interrupted download resumes.
   * A version's files never change under their name: cached for a year.
   */
  @Get('releases/files/:version/:name')
  async downloadReleaseFile(@Param('version') version: string, @Param('name') name: string, @Res() res: Response): Promise<void> {
    const path = await this.releases.file(version, name);
    const headers = { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${basename(path)}"` };
    res.sendFile(basename(path), { root: dirname(path), maxAge: '365d', immutable: true, headers }, (err) => {
      if (!err || res.headersSent) return;
      // The file's headers may be set already (a range outside it): an error is JSON, and never cached.
      for (const header of Object.keys(headers).concat('Cache-Control', 'ETag', 'Last-Modified')) res.removeHeader(header);
      const status = (err as { status?: number }).status === 416 ? 416 : 404;
      res.status(status).json(status === 416 ? RANGE_NOT_SATISFIABLE : { statusCode: 404, message: NO_SUCH_FILE, error: 'Not Found' });
    });
  }

  @Post('system/analytics/download')
  @HttpCode(201)
  @RateLimit({ name: 'analytics', limit: (c) => c.rateLimits.analytics })
  trackDownload(@Body() body: RequestBody<'trackDownload'>, @Headers('user-agent') userAgent?: string): Promise<ResponseBody<'trackDownload', 201>> {
    return this.downloads.record(body, userAgent);
  }

  @Post('contact/submit')
  @HttpCode(201)
  @RateLimit({ name: 'contact', limit: (c) => c.rateLimits.contact })
  submitContact(@Body() body: RequestBody<'submitContact'>): Promise<ResponseBody<'submitContact', 201>> {
    return this.contact.submitContact(body);
  }

  @Post('contact/testimonial')
  @HttpCode(201)
  @RateLimit({ name: 'testimonial', limit: (c) => c.rateLimits.contact })
  submitTestimonial(@Body() body: RequestBody<'submitTestimonial'>): Promise<ResponseBody<'submitTestimonial', 201>> {
    return this.contact.submitTestimonial(body);
  }
}
