import type { components } from '@glob/contract';
import { api, unwrap } from '../client';

export type DownloadEvent = components['schemas']['DownloadEvent'];
export type ContactMessage = components['schemas']['ContactMessage'];
export type Testimonial = components['schemas']['Testimonial'];

/** GET /api/releases/latest, raw: the downloads page decides what a failure means. */
export function getLatestRelease() {
  return api.GET('/api/releases/latest');
}

/** POST /api/system/analytics/download. */
export function trackDownload(event: DownloadEvent) {
  return unwrap(api.POST('/api/system/analytics/download', { body: event }));
}

/** POST /api/contact/submit. */
export function submitContact(body: ContactMessage) {
  return unwrap(api.POST('/api/contact/submit', { body }));
}

/** POST /api/contact/testimonial (the photo is not sent). */
export function submitTestimonial(body: Testimonial) {
  return unwrap(api.POST('/api/contact/testimonial', { body }));
}
