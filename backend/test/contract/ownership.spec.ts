import { encodeCommitment } from '@glob/engine/commitment';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Response } from 'supertest';
import { loadSpec, SpecOperation, specOperations } from '../../src/contract/spec';
import { REDIS } from '../../src/redis/redis.module';
import { expectSpecResponse } from '../support/contract';
import { newUser } from '../support/users';
import { provingHeartbeat } from '../support/scripted-node';
import { startStack, TestStack } from '../support/app';
import { startReply } from '../support/worker';
import { createCredential } from '../support/webauthn';

/**
 * Ownership on every path, generated from the spec: every operation whose path names a resource by id
 * (`{id}`, `{userId}`, any `{…Id}`) is called by a second signed-in account B on resources of account A.
 * Each answer must be 403 or 404, documented by the spec, free of A's data, and A's resources must be
 * exactly as they were. A new operation with such a path fails here until it has a fixture below.
 */

type Account = Awaited<ReturnType<typeof newUser>> & { node: { id: string; auth: { Authorization: string } } };

/** Account A's resources, made through the API (the stream excepted, see beforeAll). */
interface World {
  a: Account;
  b: Account;
  conversationId: string;
  conversationTitle: string;
  messageContent: string;
  notificationId: string;
  purchaseTransactionId: string;
  streamId: string;
  taskId: string;
  /** A job of A's, held by A's node. */
  nodeJobId: string;
  /** An embedding job of A's (one text), held by A's node. */
  embedJobId: string;
  /** A verify job (a check of B's node's work) held by A's node. */
  verifyJobId: string;
  /** An API key of A's. */
  apiKeyId: string;
  /** A pool of two other nodes of A's (its owner dissolves it). */
  poolId: string;
  /** A pool of A's node and a second node of A's (A's node leaves it from its control panel). */
  selfPoolId: string;
  /** A passkey of A's. */
  passkeyId: string;
  /** A signed-in session of A's other than the one the checks use. */
  sessionId: string;
}

/**
 * Which of A's resources a path names, by path prefix (the prefix ends at the placeholder it fills).
 * `{userId}` anywhere is A's user id. Add an entry here for every new path that names a resource by id.
 */
const FIXTURES: Array<{ prefix: string; value: (w: World) => string; operationId?: string }> = [
  // An embed job's vectors go to an embed job (a chat job answers 409).
  { prefix: '/api/nodes/jobs/{jobId}', operationId: 'sendNodeJobEmbeddings', value: (w) => w.embedJobId },
  // A recomputation goes to a verify job.
  { prefix: '/api/nodes/jobs/{jobId}', operationId: 'sendNodeJobRecomputation', value: (w) => w.verifyJobId },
  { prefix: '/api/chat/conversations/{id}', value: (w) => w.conversationId },
  { prefix: '/api/api-keys/{id}', value: (w) => w.apiKeyId },
  { prefix: '/api/notifications/{id}', value: (w) => w.notificationId },
  { prefix: '/api/inference/stream/{id}', value: (w) => w.streamId },
  { prefix: '/api/nodes/{id}', value: (w) => w.a.node.id },
  { prefix: '/api/nodes/earnings/{id}', value: (w) => w.a.node.id },
  { prefix: '/api/nodes/jobs/{jobId}', value: (w) => w.nodeJobId },
  { prefix: '/api/nodes/pools/{poolId}', value: (w) => w.poolId },
  // B's node leaving the pool A's node is in (the control panel's operation).
  { prefix: '/api/nodes/self/pools/{poolId}', value: (w) => w.selfPoolId },
  { prefix: '/api/users/passkeys/{id}', value: (w) => w.passkeyId },
  { prefix: '/api/users/sessions/{id}', value: (w) => w.sessionId },
  // /api/users/{id}/notifications: here `{id}` is the user's id.
  { prefix: '/api/users/{id}', value: (w) => w.a.id },
];

/**
 * Bodies taken from the spec's examples, changed only where the example would fail for a reason other than
 * ownership if B's request got through: a transfer goes to B's own (existing) wallet, so that a leak would
 * move A's tokens instead of answering 404 for an unknown recipient.
 */
const BODY_OVERRIDES: Record<string, (body: Record<string, unknown>, w: World) => Record<string, unknown>> = {
  transferTokens: (body, w) => ({ ...body, to_address: w.b.address }),
  // One vector of the tiny embedding model's length for the job's one text (the example's would fail the check).
  sendNodeJobEmbeddings: () => ({ embeddings: [Buffer.alloc(192 * 4).toString('base64')] }),
};

/** Bodies of other media types, as sent: a streamed reply's one line of tokens (the example's `done` would end A's job). */
const RAW_BODY_OVERRIDES: Record<string, string> = {
  streamNodeJobEvents: `${JSON.stringify({ events: [{ type: 'token', text: 'Hi' }] })}\n`,
};

/** Paths naming a resource by id: `{id}`, `{userId}`, `{conversationId}`… */
const ID_PARAM = /\{(id|[A-Za-z]*Id)\}/g;

const spec = loadSpec() as unknown as { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;
const deref = <T>(node: T): T => {
  const ref = (node as { $ref?: string } | undefined)?.$ref;
  return ref
    ? (ref
        .slice(2)
        .split('/')
        .reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], spec) as T)
    : node;
};

type Param = { name: string; in: string; required?: boolean; example?: unknown; schema?: { default?: unknown; enum?: unknown[]; example?: unknown } };
type SpecOp = {
  parameters?: Param[];
  requestBody?: { required?: boolean; content: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown; $ref?: string }> }> };
};

const owned = specOperations().filter((o) => new RegExp(ID_PARAM.source).test(o.path));

/** Node operations take a node's credential, not a user's token: each account calls them through its own node. */
const isNodeOperation = (o: SpecOperation) =>
  ((spec.paths[o.path]![o.method] as { security?: Array<Record<string, unknown>> }).security ?? []).some((s) => 'nodeCredential' in s);
const authFor = (o: SpecOperation, who: Account): Record<string, string> => (isNodeOperation(o) ? who.node.auth : {});

/** The id of A's resource a path's placeholder names, or an error telling the developer what to add. */
function fixtureFor(o: SpecOperation, name: string, w: World): string {
  if (name === 'userId') return w.a.id;
  const placeholder = `{${name}}`;
  const upTo = o.path.slice(0, o.path.indexOf(placeholder) + placeholder.length);
  const match = FIXTURES.find((f) => f.prefix === upTo && (!f.operationId || f.operationId === o.operationId));
  if (!match) {
    throw new Error(
      `${o.operationId} (${o.method.toUpperCase()} ${o.path}) names a resource by ${placeholder}, but no fixture maps "${upTo}" to one of ` +
        `account A's resources. Add an entry to FIXTURES in test/contract/ownership.spec.ts (create the resource for A in beforeAll, ` +
        `and add what B must not change to stateOfA), so that another account's access to it is checked.`,
    );
  }
  return match.value(w);
}

/** A spec-valid request for this operation on A's resources: path from the fixtures, the rest from the spec's examples. */
function buildRequest(o: SpecOperation, w: World) {
  const item = spec.paths[o.path]!;
  const op = item[o.method] as SpecOp;
  const params = [...((item.parameters as Param[] | undefined) ?? []), ...(op.parameters ?? [])].map(deref);
  let url = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(fixtureFor(o, name, w)));
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of params) {
    if (p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') {
      headers[p.name] = randomUUID();
      continue;
    }
    if (!p.required || p.in === 'path') continue;
    const schema = deref(p.schema) ?? {};
    const value = p.example ?? schema.example ?? schema.default ?? schema.enum?.[0];
    if (value === undefined) throw new Error(`${o.operationId}: required ${p.in} parameter ${p.name} has no example or default in the spec`);
    if (p.in === 'query') query.set(p.name, String(value));
    if (p.in === 'header') headers[p.name] = String(value);
  }
  if ([...query].length) url += `?${query}`;
  let body: unknown;
  const json = op.requestBody?.content['application/json'];
  const [mediaType, raw] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  if (!json && mediaType && raw) {
    // A body that is not JSON (a streamed body's lines) goes as its own media type.
    headers['Content-Type'] = mediaType;
    body = RAW_BODY_OVERRIDES[o.operationId] ?? (raw as { example?: string }).example;
  }
  if (json) {
    body = json.example ?? deref(Object.values(json.examples ?? {})[0])?.value;
    if (body === undefined && op.requestBody?.required) throw new Error(`${o.operationId}: its request body has no example in the spec`);
    const override = BODY_OVERRIDES[o.operationId];
    if (override && body !== undefined) body = override(body as Record<string, unknown>, w);
  }
  return { url, headers, body };
}

interface Answer {
  status: number;
  text: string;
  body: unknown;
  /** Answered with an event stream (not read further). */
  streaming: boolean;
}

describe('contract: every operation on an owned resource refuses another account', () => {
  let stack: TestStack;
  let w: World;
  let heartbeats: NodeJS.Timeout | undefined;
  const checked: string[] = [];

  /** Calls the API over HTTP; an event stream is not read (its status and headers are what matter). */
  async function call(who: Account, method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 10_000);
    try {
      const res = await fetch(`${stack.url}${url}`, {
        method: method.toUpperCase(),
        headers: { ...who.auth, ...(body === undefined || typeof body === 'string' ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        signal: ctrl.signal,
      });
      if (/^(text\/event-stream|application\/x-ndjson)/.test(res.headers.get('content-type') ?? '')) {
        ctrl.abort();
        return { status: res.status, text: '(an event stream)', body: {}, streaming: true };
      }
      const text = await res.text();
      let parsed: unknown = {};
      if (text && res.headers.get('content-type')?.includes('json')) parsed = JSON.parse(text);
      return { status: res.status, text, body: parsed, streaming: false };
    } finally {
      clearTimeout(timer);
    }
  }

  const asSupertest = (a: Answer) => a as unknown as Response;

  /** Everything of A's that an operation on A's resources could change, read back as A (and the stream's task and stop flag). */
  async function stateOfA() {
    const get = async (url: string) => {
      const res = await call(w.a, 'get', url);
      if (res.status !== 200) throw new Error(`A could not read ${url}: ${res.status} ${res.text}`);
      return res.body;
    };
    const redis = stack.app.get<Redis>(REDIS);
    const [task] = (await stack.db.query(
      `SELECT id, user_id, status, stop_reason, error, completed_at, conversation_id FROM inference_tasks WHERE stream_id = $1`,
      [w.streamId],
    )) as Array<Record<string, unknown>>;
    const [nodeTask] = (await stack.db.query(`SELECT status, node_id, charged_units FROM inference_tasks WHERE stream_id = $1`, [
      w.nodeJobId,
    ])) as Array<Record<string, unknown>>;
    const nodes = ((await get('/api/nodes')) as { nodes: Array<Record<string, unknown>> }).nodes.map((n) => ({
      id: n.id,
      name: n.name,
      allocation: n.allocation,
      paused: n.status === 'paused',
      tasks_served: n.tasks_served,
    }));
    // Whether a member is online (and so whether its pool is healthy) follows its heartbeats, which a slow run can miss:
    // the time's doing, not B's, so it is left out.
    const { pools } = (await get('/api/nodes/pools')) as { pools: Array<Record<string, unknown> & { members: Array<Record<string, unknown>> }> };
    return {
      nodes,
      pools: pools.map(({ status: _pool, members, ...pool }) => ({ ...pool, members: members.map(({ status: _member, ...m }) => m) })),
      nodeTask,
      wallet: await get(`/api/wallet/${w.a.id}`),
      balance: await get(`/api/wallet/${w.a.id}/balance`),
      transactions: await get(`/api/users/${w.a.id}/transactions?limit=100`),
      notifications: await get(`/api/users/${w.a.id}/notifications?limit=50`),
      conversations: await get(`/api/chat/conversations?limit=100`),
      conversation: await get(`/api/chat/conversations/${w.conversationId}`),
      apiKeys: await get('/api/api-keys'),
      passkeys: await get('/api/users/passkeys'),
      // A's own reads record its sign-in's use (at most once a minute): when it was last used, and so the list's
      // order, are A's doing on a slow run, not B's.
      sessions: ((await get('/api/users/sessions')) as { sessions: Array<Record<string, unknown>> }).sessions
        .map(({ last_used_at: _used, ...session }) => session)
        .sort((x, y) => String(x.id).localeCompare(String(y.id))),
      streamTask: task,
      streamStopRequested: await redis.exists(`${stack.config.redis.prefix}:stop:${w.streamId}`),
    };
  }

  /** A passkey registered for the account through a software authenticator, as the stack's default origin. */
  async function addPasskey(auth: Record<string, string>): Promise<string> {
    const options = await stack.http.post('/api/users/passkeys/registration-options').set(auth).expect(200);
    const { response } = createCredential(options.body, stack.config.webauthn.origins[0]!);
    return (await stack.http.post('/api/users/passkeys').set(auth).send({ response, name: 'owner passkey' }).expect(201)).body.id as string;
  }

  /** A second sign-in of the account (ending the one the checks use would sign A out of the rest). */
  async function otherSession(email: string, auth: Record<string, string>): Promise<string> {
    await stack.http.post('/api/users/login').send({ email, password: 'a quiet mountain stream' }).expect(200);
    const { sessions } = (await stack.http.get('/api/users/sessions').set(auth).expect(200)).body as {
      sessions: Array<{ id: string; current: boolean }>;
    };
    return sessions.find((s) => !s.current)!.id;
  }

  beforeAll(async () => {
    // The stream fixture below is a task without a job, which the reaper would end (and save into A's conversation) once
    // A's node makes the file take longer than its grace period: it does not sweep during this file.
    // The node's claimed jobs are held for the whole walk: no first-token deadline takes them back meanwhile.
    stack = await startStack({ env: { PAYMENTS_TEST_MODE: 'true', REAPER_INTERVAL_MS: '3600000', NODE_FIRST_TOKEN_SECONDS: '3600' } });
    // Each account pairs a node; A's node heartbeats (serving the tiny model) for the whole file, so it stays live and keeps its job's lock.
    const pairNode = async (user: Awaited<ReturnType<typeof newUser>>, name: string) => {
      const token = (await stack.http.post('/api/nodes/join-tokens').set(user.auth).expect(201)).body.join_token as string;
      const reg = await stack.http
        .post('/api/nodes/register')
        .send({
          join_token: token,
          name,
          host: { hostname: name, os: 'linux', arch: 'x64', cpu_cores: 2, memory_bytes: 2 ** 30 },
          models: [],
          benchmark: { model_id: 'glob-tiny-chat', tokens_per_second: 100 },
        })
        .expect(201);
      return { id: reg.body.node_id as string, auth: { Authorization: `Bearer ${reg.body.credential as string}` } };
    };
    const ua = await newUser(stack, 'owner');
    const ub = await newUser(stack, 'intruder');
    const a = { ...ua, node: await pairNode(ua, 'owner-node') };
    const b = { ...ub, node: await pairNode(ub, 'intruder-node') };
    const beat = () => provingHeartbeat(stack, a.node.auth, { models: ['glob-tiny-chat', 'glob-tiny-embed'], running_jobs: 3, slots: 3 });
    expect((await beat()).status).toBe(200);
    heartbeats = setInterval(
      () =>
        void beat().then(
          () => undefined,
          () => undefined,
        ),
      2_000,
    );

    // A conversation with a message, titled and worded so that any leak of it is recognisable.
    const conversationTitle = `Owner's secret plans ${randomUUID()}`;
    const messageContent = `The owner's private message ${randomUUID()}`;
    const conv = await stack.http
      .post('/api/chat/conversations')
      .set(a.auth)
      .send({ title: conversationTitle, model_id: 'glob-tiny-chat' })
      .expect(201);
    const conversationId = conv.body.conversation.id as string;
    await stack.http
      .post(`/api/chat/conversations/${conversationId}/messages`)
      .set(a.auth)
      .send({ message: { role: 'user', content: messageContent, tokens: 7 } })
      .expect(201);

    // Transferable tokens (the welcome bonus is not transferable): without them a transfer that got through
    // would fail for lack of funds, and the check would prove nothing. Bought as the spec's example purchase.
    const purchaseExample = (spec.paths['/api/wallet/{userId}/purchase']!.post as SpecOp).requestBody!.content['application/json']!.example;
    const purchase = await stack.http
      .post(`/api/wallet/${a.id}/purchase`)
      .set(a.auth)
      .send(purchaseExample as object)
      .expect(201);
    const purchaseTransactionId = purchase.body.transaction.id as string;

    // The welcome bonus's notification, still unread.
    const notes = await stack.http.get(`/api/users/${a.id}/notifications?limit=50`).set(a.auth).expect(200);
    const welcome = (notes.body.notifications as Array<{ id: string; type: string; read: boolean }>).find((n) => n.type === 'welcome_bonus');
    if (!welcome || welcome.read) throw new Error(`A has no unread welcome notification: ${JSON.stringify(notes.body)}`);

    // A stream of A's, queued in A's conversation. Starting one through POST /api/inference/stream/start needs a
    // live worker with the model loaded (503 otherwise) and this file runs none, so the task row is written as the
    // API writes it when it queues a job (as inference.spec.ts writes task rows). Queued with no worker, it stays
    // live: A can read it (200, an event stream) and stop it, which is what B must not be able to do.
    const streamId = `s_owner_${randomUUID().replace(/-/g, '')}`;
    const [task] = (await stack.db.query(
      `INSERT INTO inference_tasks (user_id, model_id, status, stream_id, request_hash, max_tokens, price_units, conversation_id)
       VALUES ($1, 'glob-tiny-chat', 'queued', $2, $3, 16, 1, $4) RETURNING id`,
      [a.id, streamId, `owner-${randomUUID()}`, conversationId],
    )) as Array<{ id: string }>;

    // A check of B's node's work (B's node on another network), given to A's node as a verify job (first:
    // the jobs claimed after it have their deadlines running).
    await stack.db.query(`UPDATE nodes SET origin = '198.51.100.0/24' WHERE id = $1`, [b.node.id]);
    const [check] = (await stack.db.query(
      `INSERT INTO spot_checks (task_id, node_id, model_id, node_text) VALUES ($1, $2, 'glob-tiny-chat', '') RETURNING id`,
      [task!.id, b.node.id],
    )) as Array<{ id: string }>;
    const claim = { commitment: encodeCommitment([{ token: 1, logprob: -0.5, top: [[1, -0.5]] }]), text: '', stop_reason: 'either' };
    await stack.db.query(
      `INSERT INTO peer_replays (spot_check_id, model_id, exclude_nodes, job) VALUES ($1, 'glob-tiny-chat', $2::uuid[], $3::jsonb)`,
      [
        check!.id,
        [b.node.id],
        JSON.stringify({ model_id: 'glob-tiny-chat', prompt: 'Hello', params: { temperature: 0, top_p: 1, seed: 1, max_tokens: 4 }, claim }),
      ],
    );
    const verifyClaim = await stack.http.post('/api/nodes/jobs/claim').set(a.node.auth).send({ wait_seconds: 5 });
    if (verifyClaim.status !== 200 || verifyClaim.body.kind !== 'verify')
      throw new Error(`A's node did not get the verify job: ${verifyClaim.status} ${verifyClaim.text}`);

    // A reply of A's, started through the API and claimed by A's node, which holds it.
    const nodeJobId = `s_node_${randomUUID().replace(/-/g, '')}`;
    const started = new AbortController();
    const res = await startReply(
      stack,
      a.auth,
      { streamId: nodeJobId, modelId: 'glob-tiny-chat', prompt: 'Hello', params: { max_tokens: 16 } },
      started.signal,
    );
    if (res.status !== 200) throw new Error(`A's reply did not start: ${res.status} ${await res.text()}`);
    started.abort();
    const claimed = await stack.http.post('/api/nodes/jobs/claim').set(a.node.auth).send({ wait_seconds: 5 });
    if (claimed.status !== 200 || claimed.body.job_id !== nodeJobId)
      throw new Error(`A's node did not get A's job: ${claimed.status} ${claimed.text}`);

    // An embedding request of A's (through an API key of A's), claimed by A's node; it is answered when A sends the vectors.
    const embedKey = (await stack.http.post('/api/api-keys').set(a.auth).send({ name: 'embed key' }).expect(201)).body.key as string;
    void fetch(`${stack.url}/v1/embeddings`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${embedKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'glob-tiny-embed', input: 'A secret text of the owner' }),
    }).catch(() => undefined);
    const embedClaim = await stack.http.post('/api/nodes/jobs/claim').set(a.node.auth).send({ wait_seconds: 5 });
    if (embedClaim.status !== 200 || embedClaim.body.kind !== 'embed')
      throw new Error(`A's node did not get A's embed job: ${embedClaim.status} ${embedClaim.text}`);

    // A pool of A's node and a second node of A's, and one of two more nodes of A's (as A, both are dissolved: each
    // by its own operation).
    const selfPool = await stack.http
      .post('/api/nodes/pools')
      .set(a.auth)
      .send({ name: 'owner-pool', model_id: 'glob-tiny-chat', node_ids: [a.node.id, (await pairNode(ua, 'owner-second-node')).id] })
      .expect(201);
    const pool = await stack.http
      .post('/api/nodes/pools')
      .set(a.auth)
      .send({
        name: 'owner-other-pool',
        model_id: 'glob-tiny-chat',
        node_ids: [(await pairNode(ua, 'owner-third-node')).id, (await pairNode(ua, 'owner-fourth-node')).id],
      })
      .expect(201);

    w = {
      a,
      b,
      conversationId,
      conversationTitle,
      messageContent,
      notificationId: welcome.id,
      purchaseTransactionId,
      streamId,
      taskId: task!.id,
      nodeJobId,
      embedJobId: embedClaim.body.job_id as string,
      verifyJobId: verifyClaim.body.job_id as string,
      poolId: pool.body.id as string,
      selfPoolId: selfPool.body.id as string,
      apiKeyId: (await stack.http.post('/api/api-keys').set(a.auth).send({ name: 'owner key' }).expect(201)).body.api_key.id as string,
      sessionId: await otherSession(a.email, a.auth),
      // Last: with a passkey, A's password alone no longer signs in.
      passkeyId: await addPasskey(a.auth),
    };

    // The fixtures are what they claim: A sees its conversation with its message and stream, its unread notification, its task queued.
    const state = await stateOfA();
    expect(state.conversation).toMatchObject({
      conversation: { title: conversationTitle, messages: [{ content: messageContent }], active_stream: { stream_id: streamId } },
    });
    expect(state.notifications).toMatchObject({ notifications: expect.arrayContaining([expect.objectContaining({ id: welcome.id, read: false })]) });
    expect(state.streamTask).toMatchObject({ user_id: a.id, status: 'queued' });
    expect(state.streamStopRequested).toBe(0);
    expect((state.balance as { transferable_balance: number }).transferable_balance).toBeGreaterThan(0);
  }, 60_000);

  afterAll(async () => {
    clearInterval(heartbeats);
    await stack?.close();
    process.stdout.write(`\nOwnership checked on ${checked.length} operations: ${checked.join(', ')}\n`);
  });

  it('the walk finds the operations that name a resource by id', () => {
    expect(owned.length).toBeGreaterThan(0);
    expect(owned.map((o) => o.operationId)).toEqual(
      expect.arrayContaining([
        'getWallet',
        'transferTokens',
        'purchaseTokens',
        'getConversation',
        'deleteConversation',
        'markNotificationRead',
        'getStream',
        'stopStream',
      ]),
    );
  });

  it.each(owned.map((o) => [o.operationId, o.method.toUpperCase(), o.path, o] as const))(
    "%s (%s %s) as another account on A's resource: 403 or 404, documented, nothing learned, nothing changed",
    async (operationId, _m, _p, o) => {
      const { url, headers, body } = buildRequest(o, w);
      const before = await stateOfA();
      const res = await call(w.b, o.method, url, { ...headers, ...authFor(o, w.b) }, body);

      if (res.status !== 403 && res.status !== 404) {
        throw new Error(
          `${operationId}: account B was answered ${res.status} on A's resource (${o.method.toUpperCase()} ${url}), not 403 or 404: ${res.text}`,
        );
      }
      expectSpecResponse(asSupertest(res), operationId);

      // Nothing of A's in the answer; the ids B itself put in the URL do not count.
      const secrets = [
        w.a.email,
        w.a.address,
        w.a.id,
        w.conversationId,
        w.conversationTitle,
        w.messageContent,
        w.notificationId,
        w.purchaseTransactionId,
        w.streamId,
        w.taskId,
        w.a.node.id,
        w.nodeJobId,
      ];
      for (const secret of secrets.filter((s) => !url.includes(encodeURIComponent(s)))) {
        expect(res.text).not.toContain(secret);
      }

      // Nothing of A's changed: balance, ledger, notifications (still unread), conversations, the stream's task.
      expect(await stateOfA()).toEqual(before);
      checked.push(operationId);
    },
  );

  it("as A, the same requests succeed: the fixtures are A's real resources and the requests are valid", async () => {
    // Destructive operations last, so the others still find their resource.
    const ordered = [...owned].sort((x, y) => Number(x.method === 'delete') - Number(y.method === 'delete'));
    const answers: string[] = [];
    for (const o of ordered) {
      const { url, headers, body } = buildRequest(o, w);
      const res = await call(w.a, o.method, url, { ...headers, ...authFor(o, w.a) }, body);
      answers.push(`${o.operationId} ${res.status}`);
      if (res.status < 200 || res.status >= 300) throw new Error(`${o.operationId} as A answered ${res.status}: ${res.text}`);
      if (!res.streaming) expectSpecResponse(asSupertest(res), o.operationId);
    }
    expect(answers.length).toBe(owned.length);
  });

  it('checked every operation it walked, and the ones that matter', () => {
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.sort()).toEqual(owned.map((o) => o.operationId).sort());
    expect(checked).toEqual(expect.arrayContaining(['getWallet', 'transferTokens', 'getConversation', 'markNotificationRead', 'stopStream']));
  });
});
