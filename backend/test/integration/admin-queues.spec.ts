import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createApi } from '../../src/bootstrap';
import type Redis from 'ioredis';
import { JobSeal, type StoredJob } from '../../src/jobs/job-seal';
import { JobsService } from '../../src/jobs/jobs.service';
import { QueueName } from '../../src/jobs/jobs';
import { REDIS } from '../../src/redis/redis.module';
import { startSmtpCatcher } from '@glob/testing';
import { loadCatalog } from '../../src/modules/catalog/catalog';
import { startStack, TestStack } from '../support/app';
import { spec } from '../support/contract';
import { newUser, register } from '../support/users';

const SESSION = '/api/admin/queues/session';
const MODEL = 'glob-tiny-chat';
const NOT_FOUND = { statusCode: 404, message: 'Not found', error: 'Not Found' };

/** The dashboard cookie of a Set-Cookie answer, as a browser sends it back (`name=value`). */
function dashboardCookie(res: request.Response): string {
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = setCookie.find((c) => c.startsWith('glob_queue_dashboard='));
  if (!cookie) throw new Error(`no dashboard cookie in ${JSON.stringify(setCookie)}`);
  return cookie.split(';')[0]!;
}

/** A web build with a 404 page and routes.json, so the API serves pages for paths outside /api (make serve). */
function fakeWebBuild(): string {
  const dist = mkdtempSync(join(tmpdir(), 'glob-web-'));
  const files: Record<string, string> = {
    'index.html': '<div id="root">home</div>',
    'app.html': '<div id="root"></div>',
    '404.html': '<div id="root">web app 404</div>',
    'routes.json': JSON.stringify({ prerendered: ['/'], routes: ['/', '/app'] }),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    writeFileSync(join(dist, file), text);
  }
  return dist;
}

describe('queue dashboard at /admin/queues (operators from ADMIN_EMAILS)', () => {
  let stack: TestStack;
  const adminEmail = `ops-${Date.now().toString(36)}@example.com`;
  let admin: { auth: { Authorization: string }; refreshToken: string };
  let user: Awaited<ReturnType<typeof newUser>>;
  let cookie: string;
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;

  beforeAll(async () => {
    // Listed in another case and with spaces: the list is lower-cased and trimmed, and so is the comparison.
    smtp = await startSmtpCatcher();
    // A mail server, and no worker: every e-mail waits in the mail queue, where the board shows it.
    stack = await startStack({
      env: { ADMIN_EMAILS: ` someone@else.example , ${adminEmail.toUpperCase()} `, WEB_DIST: fakeWebBuild(), SMTP_URL: smtp.url },
    });
    const session = await register(stack, adminEmail);
    admin = { auth: { Authorization: `Bearer ${session.access_token}` }, refreshToken: session.refresh_token };
    user = await newUser(stack, 'plain');
  });
  afterAll(async () => {
    await stack.close();
    await smtp.close();
  });

  it('tells the web app who is an operator: role on getMe (and on the sign-in answers)', async () => {
    const me = spec(await stack.http.get('/api/users/me').set(admin.auth), 'getMe');
    expect(me.body.user.role).toBe('admin');
    const plain = spec(await stack.http.get('/api/users/me').set(user.auth), 'getMe');
    expect(plain.body.user.role).toBe('user');
    const login = spec(await stack.http.post('/api/users/login').send({ email: adminEmail, password: 'a quiet mountain stream' }), 'login');
    expect(login.body.user.role).toBe('admin');
  });

  it('answers 404 to anonymous visitors, on the page and on its API', async () => {
    for (const path of ['/admin/queues', '/admin/queues/', '/admin/queues/api/queues', '/admin/queues/queue/mail']) {
      const res = await stack.http.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).toEqual(NOT_FOUND);
    }
    const put = await stack.http.put('/admin/queues/api/queues/mail/pause');
    expect(put.status).toBe(404);
    // Signing in is needed to ask at all.
    spec(await stack.http.post(SESSION).expect(401), 'openQueueDashboard');
  });

  it('answers 404 to a signed-in account that is not an operator, with or without a forged cookie', async () => {
    const res = spec(await stack.http.post(SESSION).set(user.auth).expect(404), 'openQueueDashboard');
    expect(res.body).toEqual(NOT_FOUND);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await stack.http.get('/admin/queues').set(user.auth)).status).toBe(404);
    // An access token is not a dashboard token (another audience), even in the cookie.
    const withAccessToken = await stack.http.get('/admin/queues/api/queues').set('Cookie', `glob_queue_dashboard=${user.token}`);
    expect(withAccessToken.status).toBe(404);
    // A dashboard token signed with another secret.
    const forged = jwt.sign({ sid: user.id }, 'not-the-secret', {
      subject: user.id,
      audience: 'glob-network-queue-dashboard',
      issuer: 'glob-network',
    });
    expect((await stack.http.get('/admin/queues').set('Cookie', `glob_queue_dashboard=${forged}`)).status).toBe(404);
  });

  it('opens the dashboard for an operator: a short-lived httpOnly cookie scoped to /admin/queues (Secure over HTTPS)', async () => {
    const res = spec(await stack.http.post(SESSION).set(admin.auth).expect(200), 'openQueueDashboard');
    expect(res.body.url).toBe('/admin/queues');
    const expiresIn = Date.parse(res.body.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^glob_queue_dashboard=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=900; Path=\/admin\/queues; Expires=[^;]+; HttpOnly; SameSite=Strict$/,
    );
    cookie = dashboardCookie(res);
    // Behind the TLS proxy (X-Forwarded-Proto from a trusted hop), the cookie is Secure.
    const https = await stack.http.post(SESSION).set(admin.auth).set('X-Forwarded-Proto', 'https').expect(200);
    expect(String(https.headers['set-cookie'])).toMatch(/; Secure;/);
  });

  it('serves the board to the operator: the page (with its own CSP), its assets, and every queue of the platform with counts', async () => {
    const page = await stack.http.get('/admin/queues').set('Cookie', cookie).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<base href="/admin/queues/"');
    expect(page.text).not.toContain('web app 404');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    // Every script the page loads is served, from the same origin.
    const scripts = [...page.text.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const asset = await stack.http.get(`/admin/queues/${src}`).set('Cookie', cookie);
      expect([src, asset.status]).toEqual([src, 200]);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    }
    // Without the cookie, the assets are hidden too.
    expect((await stack.http.get(`/admin/queues/${scripts[0]}`)).status).toBe(404);

    const counts = async () => {
      const res = await stack.http.get('/admin/queues/api/queues').set('Cookie', cookie).expect(200);
      return res.body.queues as Array<{ name: string; counts: Record<string, number> }>;
    };
    const before = await counts();
    const models = loadCatalog(stack.config).map((m) => m.id);
    expect(models.length).toBeGreaterThan(0);
    expect(before.map((q) => q.name).sort()).toEqual(['mail', ...models.map((m) => `inference.${m}`), ...models.map((m) => `verify.${m}`)].sort());
    // No worker runs in this stack: an enqueued mail waits, and the board counts it.
    await stack.app.get(JobsService).enqueue('mail.send', { to: 'ops@example.com', subject: 'Board', text: 'hello', html: '<p>hello</p>' });
    const after = await counts();
    const waiting = (qs: typeof before) => qs.find((q) => q.name === 'mail')!.counts.waiting ?? 0;
    expect(waiting(after)).toBe(waiting(before) + 1);
  });

  it('shows no code, address or prompt: a job holds ids, and what people typed or were sent only sealed', async () => {
    const email = `secret-reader-${Date.now().toString(36)}@example.com`;
    await stack.http.post('/api/users/send-otp').set('X-Forwarded-For', '10.77.0.1').send({ email, purpose: 'signup' }).expect(202);
    const prompt = `my bank PIN is ${Date.now()}`;
    const jobs = stack.app.get(JobsService);
    const inferenceId = await jobs.enqueue('inference.generate', {
      taskId: randomUUID(),
      streamId: 's_sealed',
      userId: user.id,
      modelId: MODEL,
      messages: [{ role: 'user', content: prompt }],
      params: { temperature: 0.7, max_tokens: 16, top_p: 1 },
      holdId: randomUUID(),
      holdUnits: 1000,
      priceUnits: 100,
    });
    // What the mail processor opens is the whole e-mail, code included.
    const [mailJob] = await jobs.queue(QueueName.Mail).getJobs(['waiting']);
    const mail = stack.app.get(JobSeal).open('mail.send', mailJob!.data as StoredJob<'mail.send'>);
    expect(mail.to).toBe(email);
    const code = /verification code is: (\d{6})/.exec(mail.text)![1]!;
    const inference = await jobs.queue(`inference.${MODEL}`).getJob(inferenceId);
    expect(stack.app.get(JobSeal).open('inference.generate', inference!.data as StoredJob<'inference.generate'>).messages).toEqual([
      { role: 'user', content: prompt },
    ]);

    // The board's own API, as the operator's page reads it.
    const board = async (queue: string) =>
      JSON.stringify(
        (await stack.http.get(`/admin/queues/api/queues?activeQueue=${queue}&status=waiting&page=1`).set('Cookie', cookie).expect(200)).body,
      );
    for (const shown of [await board('mail'), await board(`inference.${MODEL}`)]) {
      expect(shown).toContain('"sealed":"v1:');
      for (const secret of [code, email, prompt]) expect(shown).not.toContain(secret);
    }
    expect(await board(`inference.${MODEL}`)).toContain(user.id);
    // Nor anywhere in Redis.
    const redis = stack.app.get<Redis>(REDIS);
    const keys = await redis.keys(`${stack.config.redis.prefix}:*`);
    for (const key of keys) {
      const type = await redis.type(key);
      const value = type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : type === 'string' ? await redis.get(key) : '';
      for (const secret of [code, email, prompt]) expect([key, value?.includes(secret)]).toEqual([key, false]);
    }
    await jobs.queue(QueueName.Mail).drain();
    await jobs.queue(`inference.${MODEL}`).drain();
  });

  it('refuses changes from a page of another origin, and takes them from its own', async () => {
    const crossSite = await stack.http.put('/admin/queues/api/queues/mail/pause').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-site');
    expect(crossSite.status).toBe(404);
    const foreign = await stack.http.put('/admin/queues/api/queues/mail/pause').set('Cookie', cookie).set('Origin', 'https://evil.example');
    expect(foreign.status).toBe(404);
    expect(
      await stack.app
        .get(JobsService)
        .queue('mail' as never)
        .isPaused(),
    ).toBe(false);
    await stack.http.put('/admin/queues/api/queues/mail/pause').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').expect(200);
    expect(
      await stack.app
        .get(JobsService)
        .queue('mail' as never)
        .isPaused(),
    ).toBe(true);
    await stack.http.put('/admin/queues/api/queues/mail/resume').set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').expect(200);
  });

  it('checks the operator again on every request: an API whose ADMIN_EMAILS no longer lists them answers 404 to the same cookie', async () => {
    // A second API on the same database and Redis, as after a restart with another ADMIN_EMAILS.
    const other: NestExpressApplication = await createApi({ ...stack.config, adminEmails: ['someone@else.example'] });
    await other.init();
    try {
      const http = request(other.getHttpServer());
      expect((await http.get('/admin/queues').set('Cookie', cookie)).status).toBe(404);
      expect((await http.get('/admin/queues/api/queues').set('Cookie', cookie)).status).toBe(404);
      spec(await http.post(SESSION).set(admin.auth).expect(404), 'openQueueDashboard');
      expect(spec(await http.get('/api/users/me').set(admin.auth), 'getMe').body.user.role).toBe('user');
      // The first API still lists them.
      await stack.http.get('/admin/queues/api/queues').set('Cookie', cookie).expect(200);
    } finally {
      await other.close();
    }
  });

  it('ends with the sign-in: after logout the cookie opens nothing', async () => {
    await stack.http.post('/api/users/logout').set(admin.auth).send({ refresh_token: admin.refreshToken }).expect(204);
    expect((await stack.http.get('/admin/queues').set('Cookie', cookie)).status).toBe(404);
  });
});
