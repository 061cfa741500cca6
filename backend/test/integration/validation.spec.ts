import { startStack, TestStack } from '../support/app';

/** Bad input never reaches a controller and never becomes a 500: it is refused with the Error body. */
describe('request validation against the spec', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  const expectError = (body: Record<string, unknown>, status: number) => {
    expect(body.statusCode).toBe(status);
    expect(typeof body.message).toBe('string');
    expect((body.message as string).length).toBeGreaterThan(0);
  };

  it('refuses malformed JSON with 400', async () => {
    const res = await stack.http.post('/api/contact/submit').set('Content-Type', 'application/json').send('{"name": "Ada",').expect(400);
    expectError(res.body, 400);
    expect(res.body.message).toBe('Request body is not valid JSON');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await stack.http.post('/api/contact/submit').set('Content-Type', 'text/plain').send('hello').expect(415);
    expectError(res.body, 415);
  });

  it('refuses a missing body with 400', async () => {
    const res = await stack.http.post('/api/contact/submit').set('Content-Type', 'application/json').expect(400);
    expectError(res.body, 400);
  });

  it('names each failing field in details', async () => {
    const res = await stack.http.post('/api/contact/submit').send({ email: 'nope', subject: 'x' }).expect(400);
    expectError(res.body, 400);
    const paths = (res.body.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/body/name', '/body/email', '/body/subject', '/body/message', '/body/agreedToTerms']));
  });

  it('refuses unknown query parameters with 400', async () => {
    const res = await stack.http.get('/api/stats/platform?debug=1').expect(400);
    expectError(res.body, 400);
  });

  it('refuses an oversized body with 413', async () => {
    const res = await stack.http
      .post('/api/contact/submit')
      .send({ message: 'x'.repeat(1_100_000) })
      .expect(413);
    expectError(res.body, 413);
  });

  it('answers 404 for an /api route the spec does not describe', async () => {
    const res = await stack.http.get('/api/nothing-here').expect(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Not found', error: 'Not Found' });
  });

  it('answers 405 for a method the path does not have', async () => {
    const res = await stack.http.delete('/api/stats/platform').expect(405);
    expectError(res.body, 405);
  });

  it('refuses malformed path parameters with 400 before any controller', async () => {
    const res = await stack.http.get('/api/wallet/not-a-uuid').set('Authorization', 'Bearer x').expect(400);
    expectError(res.body, 400);
  });

  it('serves the hand-written spec as JSON and as docs', async () => {
    const json = await stack.http.get('/api/openapi.json').expect(200);
    expect(json.body.openapi).toBe('3.1.0');
    expect(json.body.info.title).toBe('Glob Network API');
    expect(Object.keys(json.body.paths)).toContain('/api/contact/submit');
    const docs = await stack.http.get('/api/docs').redirects(1).expect(200);
    expect(docs.text).toContain('swagger-ui');
  });

  it('sets security headers and CORS for the web origin only', async () => {
    const res = await stack.http.get('/api/health').set('Origin', 'http://localhost:5173').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const other = await stack.http.get('/api/health').set('Origin', 'https://evil.example').expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('400 messages name the fields', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('says which field is missing or malformed, in words a person can act on', async () => {
    const res = await stack.http
      .post('/api/contact/submit')
      .send({ name: 'Ada', email: 'not-an-email', subject: 'general', message: 'Hi', agreedToTerms: true })
      .expect(400);
    expect(res.body.message).toBe('Email is invalid');
    const missing = await stack.http.post('/api/contact/testimonial').send({ name: 'Ada', email: 'ada@example.com', consent: true }).expect(400);
    expect(missing.body.message).toBe('message: is required');
  });
});
