import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyLlamaGguf } from '../../scripts/tiny-model/write-tiny-gguf';
import { splitParts } from '@glob/engine/gguf';
import { TINY_MODEL_FILE } from '../../src/modules/catalog/catalog';
import { killAgent, startAgent, type AgentProcess } from '../support/agent';
import { startStack, type TestStack } from '../support/app';
import { startFileServer, type FileServer } from '../support/file-server';
import { newUser } from '../support/users';
import { readSse, startReply, taskOf } from '../support/worker';

/**
 * Models pulled by the node agent (a separate process knowing only the API's URL) from a mirror that answers byte
 * ranges, as Hugging Face does: a split model whose pull is killed halfway and resumed, the tiny model, a mirror
 * serving corrupted bytes, a model whose pin is wrong (a copy already on the node, then the source's bytes), and a
 * model larger than the disk allocation. The node offers a model only once its files hash to the catalog's SHA-256,
 * deletes and reports every file that does not, and serves a reply with what it pulled.
 */
const SPLIT = 'glob-pull-split';
const TINY = 'glob-tiny-chat';
const CORRUPT = 'glob-pull-corrupt';
const WRONG_PIN = 'glob-pull-wrong-pin';
const HUGE = 'glob-pull-huge';
const UNCOUNTABLE = 'glob-pull-uncountable';
const SPLIT_FIRST = `${SPLIT}-00001-of-00003.gguf`;

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
const sizeOf = async (path: string) => (await readFile(path)).length;

describe('models pulled by the node agent', () => {
  let stack: TestStack;
  let mirror: FileServer;
  let platformDir: string;
  let nodeModels: string;
  let dataDir: string;
  let agent: AgentProcess | undefined;
  let owner: Awaited<ReturnType<typeof newUser>>;
  let args: string[];
  let splitBytes = 0;
  /** What the first agent run printed (it was killed halfway through a pull). */
  let firstRun = '';

  beforeAll(async () => {
    // The platform's own copies (it counts tokens and challenges nodes with them); the mirror serves the same files.
    platformDir = await mkdtemp(join(tmpdir(), 'glob-pull-platform-'));
    nodeModels = await mkdtemp(join(tmpdir(), 'glob-pull-node-'));
    dataDir = await mkdtemp(join(tmpdir(), 'glob-pull-data-'));
    await writeTinyLlamaGguf(join(platformDir, SPLIT_FIRST), { nLayer: 12, nEmbd: 256, nFf: 768, nHead: 4, splits: 3, seed: 7, contextLength: 2048 });
    await copyFile(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(platformDir, TINY_MODEL_FILE));
    await copyFile(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(platformDir, `${CORRUPT}.gguf`));
    // The wrong pin's file: the source serves the file as it is, and the node already has a copy; neither hashes to the pin.
    await copyFile(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(platformDir, `${WRONG_PIN}.gguf`));
    await copyFile(join(process.env.MODELS_DIR!, TINY_MODEL_FILE), join(nodeModels, `${WRONG_PIN}.gguf`));
    mirror = await startFileServer(platformDir, { bytesPerSecond: 1024 * 1024 });

    const parts = splitParts(join(platformDir, SPLIT_FIRST));
    const partSizes = await Promise.all(parts.map(sizeOf));
    splitBytes = partSizes.reduce((a, b) => a + b, 0);
    const tinyPath = join(platformDir, TINY_MODEL_FILE);
    const base = { parameters: '11M', price_per_token: 0.125, context_length: 2048 };
    const catalog = {
      models: [
        {
          ...base,
          id: SPLIT,
          name: 'Pull split',
          path: join(platformDir, SPLIT_FIRST),
          source: `${mirror.url}/${SPLIT_FIRST}`,
          sha256: await Promise.all(parts.map(sha256)),
          size_bytes: partSizes,
        },
        {
          ...base,
          id: TINY,
          name: 'Glob Tiny Chat',
          path: tinyPath,
          source: `${mirror.url}/${TINY_MODEL_FILE}`,
          sha256: await sha256(tinyPath),
          size_bytes: await sizeOf(tinyPath),
        },
        {
          ...base,
          id: CORRUPT,
          name: 'Pull corrupt',
          path: join(platformDir, `${CORRUPT}.gguf`),
          source: `${mirror.url}/${CORRUPT}.gguf`,
          sha256: await sha256(tinyPath),
          size_bytes: await sizeOf(tinyPath),
        },
        {
          ...base,
          id: WRONG_PIN,
          name: 'Pull wrong pin',
          path: join(platformDir, `${WRONG_PIN}.gguf`),
          source: `${mirror.url}/${WRONG_PIN}.gguf`,
          sha256: 'cd'.repeat(32),
          size_bytes: await sizeOf(tinyPath),
        },
        // Pinned, but the platform holds neither its file nor a tokenizer for it: it could never give a node its jobs.
        {
          ...base,
          id: UNCOUNTABLE,
          name: 'Pull uncountable',
          path: join(platformDir, `${UNCOUNTABLE}.gguf`),
          source: `${mirror.url}/${UNCOUNTABLE}.gguf`,
          sha256: 'ef'.repeat(32),
          size_bytes: await sizeOf(tinyPath),
        },
        // 60 GB: more than the default disk allocation (50 GB); never fetched.
        {
          ...base,
          id: HUGE,
          name: 'Pull huge',
          path: join(platformDir, `${HUGE}.gguf`),
          tokenizer: tinyPath,
          source: `${mirror.url}/${HUGE}.gguf`,
          sha256: 'ab'.repeat(32),
          size_bytes: 60 * 1024 ** 3,
        },
      ],
    };
    mirror.corrupt.add(`${CORRUPT}.gguf`);
    const catalogPath = join(platformDir, 'catalog.json');
    await writeFile(catalogPath, JSON.stringify(catalog));
    stack = await startStack({ env: { MODEL_CATALOG: catalogPath } });
    owner = await newUser(stack, 'puller');
    const token = await stack.http.post('/api/nodes/join-tokens').set(owner.auth).expect(201);
    args = [
      ...['--api', stack.url, '--join-token', token.body.join_token as string, '--name', 'pulling-pc'],
      ...['--models-dir', nodeModels, '--data-dir', dataDir, '--threads', '1', '--gpu', 'off', '--memory', '2048'],
    ];
  }, 120_000);

  afterAll(async () => {
    await killAgent(agent);
    await stack?.close();
    await mirror?.close();
    for (const d of [platformDir, nodeModels, dataDir]) if (d) await rm(d, { recursive: true, force: true });
  }, 60_000);

  const nodes = async () =>
    (await stack.http.get('/api/nodes').set(owner.auth).expect(200)).body.nodes as Array<{ id: string; models: string[]; status: string }>;
  const splitSent = () => [...mirror.sent].filter(([name]) => name.startsWith(SPLIT)).reduce((a, [, n]) => a + n, 0);

  it('the catalog names each model’s files with their source, size and SHA-256', async () => {
    const res = await stack.http.get('/api/nodes/catalog').expect(200);
    const split = (res.body.models as Array<{ id: string; files: Array<{ name: string; url: string }>; size_bytes: number }>).find(
      (m) => m.id === SPLIT,
    )!;
    expect(split.size_bytes).toBe(splitBytes);
    expect(split.files.map((f) => f.name)).toEqual(splitParts(SPLIT_FIRST));
    expect(split.files[1]!.url).toBe(`${mirror.url}/${SPLIT}-00002-of-00003.gguf`);
    // A model whose tokens the platform cannot count is not offered, so no node pulls it for nothing.
    expect((res.body.models as Array<{ id: string }>).map((m) => m.id)).toEqual([SPLIT, TINY, CORRUPT, WRONG_PIN, HUGE]);
  });

  it('a pull killed halfway offers nothing yet, and resumes on the next run: what was fetched is not fetched again', async () => {
    agent = startAgent(args);
    await agent.waitFor(new RegExp(`Pulling ${SPLIT}: [7-9]\\d %`), 60_000);
    agent.child.kill('SIGKILL');
    await agent.exited;
    firstRun = agent.output();
    expect(splitSent()).toBeGreaterThan(0);
    // Not paired yet: a node reports only verified models, and this one had none.
    expect(await nodes()).toEqual([]);

    agent = startAgent(args);
    const [, kept] = await agent.waitFor(new RegExp(`Resuming ${SPLIT}: ([\\d.]+) MB of ([\\d.]+) MB already here`), 60_000);
    const [, fetched] = await agent.waitFor(new RegExp(`Pulled and verified ${SPLIT} \\(([\\d.]+) MB fetched`), 90_000);
    const mb = splitBytes / 1024 ** 2;
    expect(Number(kept)).toBeGreaterThan(mb / 4);
    // The second run fetched what the first had not kept, not the whole model again.
    expect(Number(fetched)).toBeLessThan(mb - Number(kept) + 1);
    expect(Number(kept) + Number(fetched)).toBeGreaterThanOrEqual(mb - 0.1);
  }, 180_000);

  it('a file that does not hash to its pin (corrupted, or a wrong pin) is deleted and reported; a model larger than the disk allocation is skipped with a plain message', async () => {
    await agent!.waitFor(/Paired as pulling-pc/, 90_000);
    const out = agent!.output();
    expect(out).toMatch(new RegExp(`Pulled and verified ${TINY}`));
    const refused = (id: string) =>
      new RegExp(`Pulled ${id}, but ${id}\\.gguf is not the catalog's file \\(its SHA-256 differs\\): deleted it; it is not served`);
    // Fetched whole, then refused.
    expect(out).toMatch(refused(CORRUPT));
    expect(mirror.sent.get(`${CORRUPT}.gguf`)).toBeGreaterThan(0);
    // The copy the node had before a pin that does not match it: deleted and reported before anything was pulled; then
    // the source's bytes, which do not match it either.
    expect(firstRun).toMatch(new RegExp(`${WRONG_PIN}: ${WRONG_PIN}\\.gguf is not the catalog's file \\(its SHA-256 differs\\): deleted it`));
    expect(out).toMatch(refused(WRONG_PIN));
    expect(mirror.sent.get(`${WRONG_PIN}.gguf`)).toBeGreaterThan(0);
    expect(out).toMatch(new RegExp(`Not pulling ${HUGE}: its files \\(60\\.0 GB\\) do not fit in what the disk allocation of 50 GB has left`));
    expect(mirror.sent.has(`${HUGE}.gguf`)).toBe(false);
    expect(mirror.sent.has(`${UNCOUNTABLE}.gguf`)).toBe(false);
    expect(out).not.toMatch(UNCOUNTABLE);
    const files = await readdir(nodeModels);
    // Nothing of a refused file is left: not the file, not a partial download or a verification note.
    expect(files.filter((f) => f.startsWith(CORRUPT) || f.startsWith(WRONG_PIN))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining([...splitParts(SPLIT_FIRST), TINY_MODEL_FILE]));
  }, 120_000);

  it('the node offers the verified models only, and serves a reply with one it pulled', async () => {
    const deadline = Date.now() + 30_000;
    let node = (await nodes())[0];
    while (!(node?.status === 'online' && node.models.includes(TINY) && node.models.includes(SPLIT))) {
      if (Date.now() > deadline) throw new Error(`never offered: ${JSON.stringify(node)}\n${agent!.output()}`);
      await new Promise((r) => setTimeout(r, 250));
      node = (await nodes())[0];
    }
    expect(node.models.sort()).toEqual([SPLIT, TINY].sort());
    const asker = await newUser(stack, 'pull-asker');
    const streamId = `s_pull_${Date.now().toString(36)}`;
    const res = await startReply(stack, asker.auth, { streamId, modelId: SPLIT, prompt: 'Hello', params: { max_tokens: 8 } });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', success: true });
    expect(await taskOf(stack, streamId)).toMatchObject({ status: 'completed', node_id: node.id });
  }, 90_000);
});
