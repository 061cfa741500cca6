import { startStack, TestStack } from '../support/app';
import { ScriptedNode } from '../support/scripted-node';
import { newUser, register } from '../support/users';
import { readSse, startReply, startWorker, WorkerProcess } from '../support/worker';

const TOKEN = 'personal-data-metrics-token-0123456789';
/** The worker process's model. */
const WORKER_MODEL = 'glob-tiny-chat';
/** A catalog model no worker here serves: only the paired node takes its jobs. */
const NODE_MODEL = 'llama-3.2-1b-instruct';
const PASSWORD = 'eleven amber lanterns hum';
/** Names a person chose, distinctive enough that no other text of a run holds them by chance. */
const tag = Date.now().toString(36);
const EMAIL = `ottilie.vandermeer.${tag}@example.org`;
const USERNAME = `Ottilie van der Meer ${tag}`;
const NODE_NAME = `ottilies-attic-workstation-${tag}`;
const WORKER_NAME = `pd-worker-${tag}`;
let seq = 0;
const streamId = () => `pd_${tag}_${++seq}`;

async function until<T>(what: string, find: () => Promise<T | undefined | false> | T | undefined | false, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await find();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const probePort = (w: { output(): string }) => Number(/Metrics and health probes on port (\d+)/.exec(w.output())?.[1]);

/** Which of `values` occur in `text`. */
const found = (text: string, values: Record<string, string>) => Object.entries(values).filter(([, v]) => text.includes(v));

/**
 * Whoever reads metrics or logs learns nothing personal: after a sign-up, a node paired under its owner's chosen name
 * and replies served by that node and by a worker the same person owns (WORKER_OWNER_EMAIL), neither process's /metrics
 * holds the address, a chosen name or an id of a user or a node, and no log line of either holds the address or a name.
 */
describe('personal data stays out of /metrics and the logs', () => {
  let stack: TestStack;
  let worker: WorkerProcess;
  let workerUrl: string;
  const captured: string[] = [];
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    stack = await startStack({
      logs: { write: (line: string) => void captured.push(line) },
      env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: 'debug' },
    });
    // The worker starts before its owner has an account: WORKER_OWNER_EMAIL names an address nobody signed up with yet.
    worker = await startWorker(stack, { METRICS_TOKEN: TOKEN, WORKER_PORT: '0', LOG_LEVEL: 'debug', WORKER_OWNER_EMAIL: EMAIL }, WORKER_NAME);
    workerUrl = `http://127.0.0.1:${await until('the worker probe port', () => probePort(worker))}`;
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
  }, 60_000);

  it('no address, chosen name or id in /metrics; no address or chosen name in any log line', async () => {
    // Sign-up, a sign-in, and a sign-in with a wrong password.
    const session = await register(stack, EMAIL, PASSWORD, USERNAME);
    const owner = { id: session.user.id, auth: { Authorization: `Bearer ${session.access_token}` } };
    await stack.http.post('/api/users/login').send({ email: EMAIL, password: PASSWORD }).expect(200);
    await stack.http
      .post('/api/users/login')
      .send({ email: EMAIL, password: `${PASSWORD}!` })
      .expect(401);
    // An address in a query string: the access line has the path only (the validator refuses the unknown parameter).
    await stack.http.get('/api/nodes').query({ email: EMAIL }).set(owner.auth).expect(400);

    // The owner pairs a node under a name of their own; another user's replies run on it: one completes, one fails.
    const node = await ScriptedNode.pair(stack, owner, { models: [NODE_MODEL], name: NODE_NAME });
    const asker = await newUser(stack, 'pd-asker');
    const served = startReply(stack, asker.auth, { streamId: streamId(), modelId: NODE_MODEL, prompt: 'Hi', params: { max_tokens: 8 } }).then(
      readSse,
    );
    const job = (await node.claim(10))!;
    expect((await node.finish(job.job_id, 'Hello there')).status).toBe(200);
    expect((await served).at(-1)!.data.type).toBe('done');
    const failing = startReply(stack, asker.auth, { streamId: streamId(), modelId: NODE_MODEL, prompt: 'Hi', params: { max_tokens: 8 } }).then(
      readSse,
    );
    const second = (await node.claim(10))!;
    await node.send(second.job_id, [{ type: 'error', message: 'out of memory' }]);
    expect((await failing).at(-1)!.data.type).toBe('error');

    // The worker's next heartbeat gives it to the account of its WORKER_OWNER_EMAIL; the owner asks it for a reply.
    await until('the worker to be owned', async () => {
      const [row] = (await stack.db.query(`SELECT owner_id FROM nodes WHERE id = $1`, [worker.nodeId])) as Array<{ owner_id: string | null }>;
      return row?.owner_id === owner.id;
    });
    const own = await readSse(
      await startReply(stack, owner.auth, { streamId: streamId(), modelId: WORKER_MODEL, prompt: 'Hello', params: { max_tokens: 8 } }),
    );
    expect(own.at(-1)!.data.type).toBe('done');

    const api = await scrape(stack.url);
    const work = await scrape(workerUrl);
    const personal = {
      email: EMAIL,
      username: USERNAME,
      'node name': NODE_NAME,
      'worker name': WORKER_NAME,
      'owner id': owner.id,
      'asker id': asker.id,
      'node id': node.id,
      'worker node id': worker.nodeId,
    };
    expect({ api: found(api, personal), worker: found(work, personal) }).toEqual({ api: [], worker: [] });
    // The scrapes saw this test's work: had they been empty, the check above would prove nothing.
    expect(api).toMatch(new RegExp(`^glob_inference_replies_total\\{[^}]*model="${NODE_MODEL}"[^}]*outcome="completed"[^}]*\\} 1$`, 'm'));
    expect(work).toMatch(new RegExp(`^glob_inference_replies_total\\{[^}]*model="${WORKER_MODEL}"[^}]*outcome="completed"[^}]*\\} 1$`, 'm'));

    // Ids may be logged (the admin view finds a user or a node by id); the address and the names may not.
    const logs = [...captured, worker.output()].join('');
    expect(found(logs, { email: EMAIL, username: USERNAME, 'node name': NODE_NAME })).toEqual([]);
    expect(logs).toContain(`Node ${node.id} claimed job ${job.job_id}`);
    expect(logs).toMatch(/WORKER_OWNER_EMAIL .*has no account yet/);
  }, 120_000);
});
