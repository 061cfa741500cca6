import { HttpResponse, http as plain } from 'msw';
import { RELEASE_HOST } from '../../env';
import { example } from '../examples';
import { http } from '../http';

/** Tag `site`: releases, download analytics, contact and testimonials. */
export const siteHandlers = [
  http.get('/api/releases/latest', ({ response }) => response(200).json(example('/api/releases/latest', 'get', 200))),
  http.get('/api/releases/latest/manifest', ({ response }) => response(200).json(example('/api/releases/latest/manifest', 'get', 200))),
  // A release file is binary the spec cannot give an example of: the mocks answer a few bytes, as an attachment.
  http.get('/api/releases/files/{version}/{name}', ({ params, response }) =>
    response.untyped(
      new Response(new TextEncoder().encode('Glob Network'), {
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${params.name}"` },
      }),
    ),
  ),
  http.post('/api/system/analytics/download', async ({ request, response }) => {
    const body = await request.json();
    return response(201).json({ ...example('/api/system/analytics/download', 'post', 201), platform: body.platform });
  }),
  http.post('/api/contact/submit', ({ response }) => response(201).json(example('/api/contact/submit', 'post', 201))),
  http.post('/api/contact/testimonial', ({ response }) => response(201).json(example('/api/contact/testimonial', 'post', 201))),
];

/**
 * Outside the API: the release host holds nothing on mocks, so the downloads page goes on to the API
 * (the second source of its fetch order), as it would when the host is unreachable.
 */
export const releaseHostHandlers = [plain.get(`${RELEASE_HOST}/latest.json`, () => HttpResponse.json({ message: 'Not Found' }, { status: 404 }))];
