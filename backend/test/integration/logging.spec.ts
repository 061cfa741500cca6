import { randomUUID } from 'node:crypto';
import { startStack, TestStack } from '../support/app';
import { ScriptedNode } from '../support/scripted-node';
import { startSmtpCatcher } from '@glob/testing';
import { newUser } from '../support/users';
import { readSse, startWorker, WorkerProcess } from '../support/worker';

/** The worker process's model; the scripted node's model is one no worker loads, so only the node takes its jobs. */
const WORKER_MODEL = 'glob-tiny-chat';
const NODE_MODEL = 'llama-3-8b-instruct';
/** The prompts are secrets too: no log line may carry them. */
const PROMPT = 'Tell me about the violet lighthouse keeper';
const PASSWORD = 'sixteen copper kettles whistle';

type Line = Record<string, unknown> & { level: string; time: string; msg: string };

const parse = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);

async function until<T>(what: string, find: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * One structured logger in every process, at LOG_LEVEL=debug so nothing hides behind the level: the API's lines (and
 * the in-process mail worker's) are captured from the logger's destination, a real worker process's from its stdout.
 */
describe('logs: JSON lines with a request id from the HTTP request to the worker and the node, and no secrets', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
  const captured: string[] = [];
  const apiLines = () => parse(captured.join(''));
  const workerLines = () => parse(worker.output());
  /** Every secret the tests saw, for the check at the end. */
  const secrets: string[] = [PASSWORD];

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    stack = await startStack({
      worker: true,
      logs: { write: (line: string) => void captured.push(line) },
      env: { LOG_LEVEL: 'debug', SMTP_URL: smtp.url },
    });
    worker = await startWorker(stack, { LOG_LEVEL: 'debug', SMTP_URL: smtp.url });
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
    await smtp?.close();
  }, 60_000);

  it("follows a chat reply by the request's X-Request-Id: the response header, the API's lines and the worker's job lines", async () => {
    const user = await newUser(stack, 'chatter');
    secrets.push(user.token, user.refreshToken);
    const requestId = `test-${randomUUID()}`;
    const res = await fetch(`${stack.url}/api/inference/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Request-Id': requestId, ...user.auth },
      body: JSON.stringify({ streamId: `log_${Date.now().toString(36)}`, modelId: WORKER_MODEL, prompt: PROMPT, params: { max_tokens: 16 } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const events = await readSse(res);
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', success: true });

    // The API's access line: method, path, status, ms and the id — one line for the request.
    const access = await until('the access line', () =>
      apiLines().filter((l) => l.req_id === requestId && l.context === 'HTTP' && l.path === '/api/inference/stream/start'),
    );
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ level: 'info', method: 'POST', status: 200, name: expect.any(String) });
    expect(access[0]!.ms).toEqual(expect.any(Number));

    // The worker ran the job in the same id: its start and its end.
    const jobLines = await until('the worker job lines', () => {
      const mine = workerLines().filter((l) => l.req_id === requestId);
      return mine.some((l) => /done/.test(l.msg)) && mine;
    });
    expect(jobLines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Job \S+ started$/), expect.stringMatching(/^Job \S+ done: \d+ tokens/)]),
    );
    expect(jobLines[0]).toMatchObject({ name: 'worker', context: 'InferenceWorker', model: WORKER_MODEL, task_id: expect.any(String) });
  });

  it('answers a new id when the request sent none, or one that is not a plain token', async () => {
    const none = await fetch(`${stack.url}/api/health/live`);
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await fetch(`${stack.url}/api/health/live`, { headers: { 'X-Request-Id': 'not a token; rm -rf' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // A browser may read it (CORS).
    const cors = await fetch(`${stack.url}/api/health/live`, { headers: { Origin: stack.config.web.origin[0] ?? 'http://localhost:5173' } });
    expect(cors.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/i);
  });

  it("gives a remote node the reply's request id, and logs its claim and its end on the API in that id", async () => {
    const owner = await newUser(stack, 'provider');
    const user = await newUser(stack, 'asker');
    secrets.push(owner.token, owner.refreshToken, user.token, user.refreshToken);
    const node = await ScriptedNode.pair(stack, owner, { models: [NODE_MODEL] });
    secrets.push(node.auth.Authorization.slice('Bearer '.length));
    const requestId = `node-${randomUUID()}`;
    const reply = fetch(`${stack.url}/api/inference/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Request-Id': requestId, ...user.auth },
      body: JSON.stringify({ streamId: `lgn_${Date.now().toString(36)}`, modelId: NODE_MODEL, prompt: PROMPT, params: { max_tokens: 16 } }),
    });
    const job = await node.claim(10);
    expect(job).toMatchObject({ request_id: requestId });
    expect((await node.finish(job!.job_id, 'Hello from the node')).status).toBe(200);
    await readSse(await reply);

    const traced = await until('the claim and end lines', () => {
      const mine = apiLines().filter((l) => l.req_id === requestId && l.context === 'NodeJobs');
      return mine.some((l) => /finished/.test(l.msg)) && mine;
    });
    expect(traced).toEqual([
      expect.objectContaining({
        msg: `Node ${node.id} claimed job ${job!.job_id}`,
        node_id: node.id,
        model: NODE_MODEL,
        http_req_id: expect.any(String),
      }),
      expect.objectContaining({ msg: `Node ${node.id} finished job ${job!.job_id} (stop)`, node_id: node.id }),
    ]);
    // Those lines were written while serving the node's own calls, whose id is another.
    expect(traced[0]!.http_req_id).not.toBe(requestId);
  });

  it('signs up with an e-mailed code and a password: neither, nor any token, is in any line', async () => {
    const email = `logs-${Date.now().toString(36)}@example.com`;
    const ip = '10.77.0.1';
    await stack.http.post('/api/users/send-otp').set('X-Forwarded-For', ip).send({ email, purpose: 'signup' }).expect(202);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && /verification code is/.test(m.raw));
    const code = /code is: (\d{6})/.exec(mail.raw)![1]!;
    const verified = await stack.http
      .post('/api/users/verify-otp')
      .set('X-Forwarded-For', ip)
      .send({ email, otp: code, purpose: 'signup' })
      .expect(200);
    const session = await stack.http
      .post('/api/users/register-with-otp')
      .set('X-Forwarded-For', ip)
      .send({ email, password: PASSWORD, username: 'logs', verification_token: verified.body.verification_token })
      .expect(201);
    const refreshed = await stack.http.post('/api/users/refresh').send({ refresh_token: session.body.refresh_token }).expect(200);
    const login = await stack.http.post('/api/users/login').set('X-Forwarded-For', ip).send({ email, password: PASSWORD }).expect(200);
    const joinToken = await stack.http.post('/api/nodes/join-tokens').set('Authorization', `Bearer ${login.body.access_token}`).expect(201);
    secrets.push(
      code,
      verified.body.verification_token,
      session.body.access_token,
      session.body.refresh_token,
      refreshed.body.access_token,
      refreshed.body.refresh_token,
      login.body.access_token,
      login.body.refresh_token,
      joinToken.body.join_token,
    );
    // The mail was sent by a worker (this process's or the worker process), in the id of the request that asked for it.
    const sent = await until('the mail line', () => [...apiLines(), ...workerLines()].find((l) => l.context === 'MailWorker'));
    const asked = apiLines().find((l) => l.req_id === sent.req_id && l.path === '/api/users/send-otp');
    expect(asked).toMatchObject({ method: 'POST', status: 202 });
  });

  it('no line of either process carries a secret or a prompt, and every line is JSON with level, time and msg', () => {
    // All lines of both processes, those of the tests above included.
    const all = [...captured, worker.output()].join('');
    for (const secret of secrets.filter(Boolean)) expect({ secret, logged: all.includes(secret) }).toEqual({ secret, logged: false });
    expect(all).not.toContain(PROMPT);
    expect(all).not.toMatch(/glb_join_|Bearer /);
    for (const line of [...apiLines(), ...workerLines()]) {
      expect(line).toEqual(expect.objectContaining({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) }));
    }
  });
});
