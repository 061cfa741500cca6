import { expectSpecResponse } from '../support/contract';
import { startSmtpCatcher } from '@glob/testing';
import { startStack, TestStack } from '../support/app';

const contact = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  subject: 'partnership',
  message: 'We would like to run our models on your network.',
  agreedToTerms: true,
};
const testimonial = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  role: 'Researcher',
  message: 'My idle GPU now pays for my own inference.',
  rating: 5,
  consent: true,
};

describe('site: download analytics', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ env: { ANALYTICS_RATE_LIMIT: '8' } });
  });
  afterAll(() => stack.close());

  it('stores each download and counts them per platform', async () => {
    const send = (platform: string) =>
      stack.http
        .post('/api/system/analytics/download')
        .send({ platform, asset: `file-${platform}`, timestamp: '2026-11-21T10:15:00.000Z', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' });
    const first = await send('linux').expect(201);
    expectSpecResponse(first, 'trackDownload');
    expect(first.body.platform_downloads).toBe(1);
    await send('windows').expect(201);
    const third = await send('linux').expect(201);
    expect(third.body.platform_downloads).toBe(2);
    const rows = (await stack.db.query(`SELECT platform, asset, user_agent FROM download_events ORDER BY created_at`)) as Array<
      Record<string, string>
    >;
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ platform: 'linux', asset: 'file-linux', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' });
  });

  it('refuses unknown platforms and missing fields with 400 and stores nothing', async () => {
    const before = (await stack.db.query(`SELECT count(*)::int AS n FROM download_events`)) as Array<{ n: number }>;
    for (const body of [
      { platform: 'android', asset: 'x' },
      { asset: 'x' },
      { platform: 'linux', asset: '' },
      { platform: 'linux', asset: 'x', timestamp: 'yesterday' },
    ]) {
      const res = await stack.http.post('/api/system/analytics/download').send(body).expect(400);
      expectSpecResponse(res, 'trackDownload');
    }
    const after = (await stack.db.query(`SELECT count(*)::int AS n FROM download_events`)) as Array<{ n: number }>;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('rate-limits per IP with 429 and Retry-After', async () => {
    let limited;
    for (let i = 0; i < 10 && !limited; i++) {
      const res = await stack.http.post('/api/system/analytics/download').send({ platform: 'macos', asset: 'a.dmg' });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(201);
    }
    expect(limited).toBeDefined();
    expectSpecResponse(limited!, 'trackDownload');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('site: contact and testimonials', () => {
  let stack: TestStack;
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    stack = await startStack({ worker: true, env: { SMTP_URL: smtp.url, SUPPORT_EMAIL: 'support@glob.test', CONTACT_RATE_LIMIT: '3' } });
  });
  afterAll(async () => {
    await stack.close();
    await smtp.close();
  });

  it('stores a contact message and e-mails it to the support address through the worker', async () => {
    const res = await stack.http.post('/api/contact/submit').set('X-Forwarded-For', '10.0.0.1').send(contact).expect(201);
    expectSpecResponse(res, 'submitContact');
    expect(res.body.message).toBe('Thank you for your message! We will get back to you soon.');
    const [row] = (await stack.db.query(`SELECT name, email, subject, message FROM contact_messages WHERE id = $1`, [res.body.id])) as Array<
      Record<string, string>
    >;
    expect(row).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com', subject: 'partnership', message: contact.message });
    const mail = await smtp.waitFor((m) => m.raw.includes('Partnership Opportunity'));
    expect(mail.to).toEqual(['support@glob.test']);
    expect(mail.raw).toMatch(/Reply-To: ada@example.com/i);
    expect(mail.raw).toContain('We would like to run our models on your network.');
  });

  it('stores a testimonial with rating 5 for review and e-mails it', async () => {
    const res = await stack.http.post('/api/contact/testimonial').set('X-Forwarded-For', '10.0.0.2').send(testimonial).expect(201);
    expectSpecResponse(res, 'submitTestimonial');
    expect(res.body.message).toBe('Thank you for sharing your experience with Glob Network!');
    const [row] = (await stack.db.query(`SELECT rating, status, role FROM testimonials WHERE id = $1`, [res.body.id])) as Array<
      Record<string, unknown>
    >;
    expect(row).toEqual({ rating: 5, status: 'pending', role: 'Researcher' });
    await smtp.waitFor((m) => m.raw.includes('[Testimonial] Grace Hopper'));
  });

  it.each([
    ['a missing name', { ...contact, name: undefined }],
    ['a blank message', { ...contact, message: '   ' }],
    ['an invalid e-mail', { ...contact, email: 'ada-at-example' }],
    ['an unknown subject', { ...contact, subject: 'sales' }],
    ['terms not accepted', { ...contact, agreedToTerms: false }],
    ['an unknown field', { ...contact, phone: '123' }],
  ])('refuses a contact message with %s (400, nothing stored)', async (_what, body) => {
    const res = await stack.http.post('/api/contact/submit').set('X-Forwarded-For', '10.0.1.1').send(body).expect(400);
    expectSpecResponse(res, 'submitContact');
    expect(res.body.statusCode).toBe(400);
    expect(typeof res.body.message).toBe('string');
    const rows = (await stack.db.query(
      `SELECT count(*)::int AS n FROM contact_messages WHERE email = 'ada-at-example' OR message = '   '`,
    )) as Array<{ n: number }>;
    expect(rows[0]?.n).toBe(0);
  });

  it.each([
    ['no consent', { ...testimonial, consent: false }],
    ['a rating of 6', { ...testimonial, rating: 6 }],
    ['a missing message', { ...testimonial, message: undefined }],
  ])('refuses a testimonial with %s', async (_what, body) => {
    const res = await stack.http.post('/api/contact/testimonial').set('X-Forwarded-For', '10.0.1.2').send(body).expect(400);
    expectSpecResponse(res, 'submitTestimonial');
  });

  it('rate-limits contact messages per IP with 429 and Retry-After, leaving other IPs alone', async () => {
    const ip = '10.9.9.9';
    for (let i = 0; i < 3; i++) await stack.http.post('/api/contact/submit').set('X-Forwarded-For', ip).send(contact).expect(201);
    const res = await stack.http.post('/api/contact/submit').set('X-Forwarded-For', ip).send(contact).expect(429);
    expectSpecResponse(res, 'submitContact');
    expect(res.body.message).toMatch(/Too many requests/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    await stack.http.post('/api/contact/submit').set('X-Forwarded-For', '10.9.9.10').send(contact).expect(201);
  });
});
