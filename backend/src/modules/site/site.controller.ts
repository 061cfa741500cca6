import { Public } from '../../auth/public.decorator';
import { Body, Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { RateLimit } from '../../common/rate-limit';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { ContactService } from './contact.service';
import { DownloadsService } from './downloads.service';
import { ReleasesService } from './releases.service';

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
