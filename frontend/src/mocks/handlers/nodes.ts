import { HttpResponse } from 'msw';
import spec from '@glob/contract/openapi.json';
import type { components } from '@glob/contract';
import { example } from '../examples';
import { http } from '../http';

type ProviderNode = components['schemas']['Node'];
type NodeUpdate = components['schemas']['NodeUpdate'];
type NodeSelfUpdate = components['schemas']['NodeSelfUpdate'];
type NodeRegistration = components['schemas']['NodeRegistration'];
type Pool = components['schemas']['Pool'];
type PendingDevice = components['schemas']['PendingDevice'];

/**
 * The caller's nodes and pools, in memory: the spec's example lists at first; pairing (register) adds a node, updates
 * change it, revocation removes it, creating and dissolving pools change the pools, so the web app's flows work on
 * mocks. Unknown ids answer the spec's examples. The node operations' caller (the desktop app's control panel) is the
 * spec's example node, one of the owner's.
 */
let nodes: ProviderNode[] = [];
let pools: Pool[] = [];
let pairedCount = 0;
let poolCount = 0;
/** Machines that asked to pair without a token (device flow): waiting, confirmed by the owner, or paired (code used). */
let devices: { device: PendingDevice; deviceCode: string; state: 'waiting' | 'approved' | 'used' }[] = [];
let deviceCount = 0;

/** Back to the spec's example lists (tests call it before each case). */
export function resetNodesMock(): void {
  nodes = example('/api/nodes', 'get', 200).nodes;
  pools = example('/api/nodes/pools', 'get', 200).pools;
  devices = [];
}
resetNodesMock();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A node made from a registration body; fields it lacks come from the spec's example node. */
function paired(body: Partial<NodeRegistration>): ProviderNode {
  const base = example('/api/nodes', 'get', 200).nodes[0]!;
  const now = new Date().toISOString();
  return {
    ...base,
    id: `00000000-0000-4000-8000-${String(++pairedCount).padStart(12, '0')}`,
    name: typeof body.name === 'string' && body.name ? body.name : base.name,
    status: 'online',
    last_seen_at: now,
    created_at: now,
    uptime_30d: 1,
    host: isObject(body.host) ? { ...base.host, ...body.host } : base.host,
    models: Array.isArray(body.models) ? body.models : base.models,
    measured_tokens_per_second: null,
    allocation: { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 },
    tasks_served: 0,
    earned: 0,
    pending: 0,
  };
}

function applyUpdate(node: ProviderNode, body: Partial<NodeUpdate>): ProviderNode {
  const next = { ...node };
  if (typeof body.name === 'string') next.name = body.name;
  if (isObject(body.allocation)) next.allocation = { ...node.allocation, ...body.allocation };
  if (typeof body.paused === 'boolean') {
    // Resuming a paused node brings it back online (the mock has no live window to wait for).
    if (body.paused) next.status = 'paused';
    else if (node.status === 'paused') next.status = 'online';
    // Resuming also clears a pause the platform made.
    if (!body.paused) next.paused_reason = null;
  }
  return next;
}

/** The memory a node offers a pool: its share of GPU memory when it has some, else its share of memory. */
const offered = (node: ProviderNode) =>
  node.host.vram_bytes
    ? Math.round((node.host.vram_bytes * node.allocation.gpu_percent) / 100)
    : Math.round((node.host.memory_bytes * node.allocation.memory_percent) / 100);

const ERRORS = { 400: 'Bad Request', 404: 'Not Found', 409: 'Conflict' } as const;
const problem = (status: keyof typeof ERRORS, message: string) => ({ statusCode: status, message, error: ERRORS[status] });

/** The node that calls the node operations on mocks: the spec's example of the control panel's node. */
const selfId = () => example('/api/nodes/self', 'get', 200).node.id;

/** The control panel's view: the calling node as the owner's list has it now, the owner's nodes, and its pools. */
function nodeSelf() {
  const answer = example('/api/nodes/self', 'get', 200);
  const node = nodes.find((n) => n.id === selfId()) ?? answer.node;
  return {
    ...answer,
    node,
    earnings: { ...answer.earnings, node_id: node.id },
    owner_nodes: nodes,
    pools: pools.filter((p) => p.members.some((m) => m.node_id === node.id)),
  };
}

/**
 * A new pool as the API answers it: forming, no member holding the file yet, so no roles and no layers. Nodes not the
 * caller's answer 404, a node already in a pool 409; a body without the fields answers the spec's example.
 */
function createPool(body: Record<string, unknown>) {
  const answer = example('/api/nodes/pools', 'post', 201);
  const ids = body.node_ids;
  if (typeof body.name !== 'string' || typeof body.model_id !== 'string' || !Array.isArray(ids)) return { status: 201 as const, pool: answer };
  const members: ProviderNode[] = [];
  for (const id of ids) {
    const node = nodes.find((n) => n.id === id);
    if (!node) return { status: 404 as const, error: problem(404, 'Node not found') };
    const taken = pools.find((p) => p.members.some((m) => m.node_id === id));
    if (taken) return { status: 409 as const, error: problem(409, `${node.name} is already in the pool ${taken.name}.`) };
    members.push(node);
  }
  const pool: Pool = {
    ...answer,
    id: `00000000-0000-4000-9000-${String(++poolCount).padStart(12, '0')}`,
    name: body.name,
    model_id: body.model_id,
    created_at: new Date().toISOString(),
    members: members.map((node) => ({
      node_id: node.id,
      name: node.name,
      role: null,
      status: node.status,
      ready: false,
      memory_bytes: offered(node),
      layers: 0,
      layer_share: 0,
    })),
  };
  pools = [pool, ...pools];
  return { status: 201 as const, pool };
}

/** The letters of a user code, as the API compares them: case, spaces and the dash do not matter. */
const codeLetters = (code: string) => code.toUpperCase().replace(/[^A-Z]/g, '');
/** A user code as the API writes it, WDJB-MJHT; anything else upper-cased as it came. */
const formatCode = (code: string) => {
  const letters = codeLetters(code);
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : code.toUpperCase();
};
/** The letters a user code is made of: the spec's DeviceCode.user_code pattern (^[BCD…]{4}-[BCD…]{4}$). */
const CODE_ALPHABET = /\[([A-Z]+)\]/.exec(
  (spec as unknown as { components: { schemas: { DeviceCode: { properties: { user_code: { pattern: string } } } } } }).components.schemas.DeviceCode
    .properties.user_code.pattern,
)![1]!;
/** The n-th code the mocks hand out: n written with the code's letters as digits. */
function nthCode(n: number): string {
  const base = CODE_ALPHABET.length;
  const letters = Array.from({ length: 8 }, (_, i) => CODE_ALPHABET[Math.floor(n / base ** (7 - i)) % base]).join('');
  return formatCode(letters);
}
const findDevice = (code: string) => devices.find((d) => codeLetters(d.device.user_code) === codeLetters(code));

/** The spec's waiting machine, under the code asked for, waiting from now for as long as the example's does. */
function exampleDevice(code: string): PendingDevice {
  const answer = example('/api/nodes/device-codes/{userCode}', 'get', 200);
  const now = Date.now();
  const lifetime = Date.parse(answer.expires_at) - Date.parse(answer.created_at);
  return { ...answer, user_code: formatCode(code), created_at: new Date(now).toISOString(), expires_at: new Date(now + lifetime).toISOString() };
}

/** A new device code for the machine a body describes (the spec's example machine for what it lacks). */
function askToPair(body: Record<string, unknown>) {
  const answer = example('/api/nodes/device-codes', 'post', 201);
  const base = exampleDevice(answer.user_code);
  const n = ++deviceCount;
  const user_code = nthCode(n);
  const device: PendingDevice = {
    ...base,
    user_code,
    name: typeof body.name === 'string' && body.name ? body.name : base.name,
    host: isObject(body.host) ? { ...base.host, ...body.host } : base.host,
    expires_at: new Date(Date.parse(base.created_at) + answer.expires_in * 1000).toISOString(),
  };
  const deviceCode = `${answer.device_code}${n}`;
  devices = [...devices, { device, deviceCode, state: 'waiting' }];
  return { ...answer, device_code: deviceCode, user_code, verification_uri_complete: `${answer.verification_uri}?code=${user_code}` };
}

const readJson = async (request: Request): Promise<Record<string, unknown>> => {
  try {
    const body: unknown = await request.json();
    return isObject(body) ? body : {};
  } catch {
    return {};
  }
};

/** Tag `nodes`: the owner's list and changes, pairing, and the node agent's own operations. */
export const nodesHandlers = [
  http.get('/api/nodes', ({ response }) => response(200).json({ nodes })),
  http.post('/api/nodes/join-tokens', ({ response }) => response(201).json(example('/api/nodes/join-tokens', 'post', 201))),
  // Pairing without a token (RFC 8628): a code asked for is kept; the owner's confirmation makes its app's next poll
  // answer a join token, once. A code the mocks never handed out answers the spec's examples; a confirmed one 404s.
  http.post('/api/nodes/device-codes', async ({ request, response }) => response(201).json(askToPair(await readJson(request)))),
  http.post('/api/nodes/device-codes/token', async ({ request, response }) => {
    const body = await readJson(request);
    const asked = devices.find((d) => d.deviceCode === body.device_code);
    if (!asked) return response(200).json(example('/api/nodes/device-codes/token', 'post', 200));
    if (asked.state === 'waiting') return response(400).json(example('/api/nodes/device-codes/token', 'post', 400));
    if (asked.state === 'used')
      return response(400).json({ statusCode: 400, message: 'This code is no longer valid: start pairing again.', error: 'expired_token' });
    asked.state = 'used';
    return response(200).json(example('/api/nodes/device-codes/token', 'post', 200));
  }),
  http.get('/api/nodes/device-codes/{userCode}', ({ params, response }) => {
    const asked = findDevice(params.userCode);
    if (!asked) return response(200).json(exampleDevice(params.userCode));
    if (asked.state !== 'waiting') return response(404).json(example('/api/nodes/device-codes/{userCode}', 'get', 404));
    return response(200).json(asked.device);
  }),
  http.post('/api/nodes/device-codes/{userCode}', ({ params, response }) => {
    const asked = findDevice(params.userCode);
    if (!asked) return response(200).json(exampleDevice(params.userCode));
    if (asked.state !== 'waiting') return response(404).json(example('/api/nodes/device-codes/{userCode}', 'post', 404));
    asked.state = 'approved';
    return response(200).json(asked.device);
  }),
  http.post('/api/nodes/register', async ({ request, response }) => {
    const node = paired(await readJson(request));
    nodes = [node, ...nodes];
    const answer = example('/api/nodes/register', 'post', 201);
    return response(201).json({ ...answer, node_id: node.id, name: node.name, allocation: node.allocation });
  }),
  // The control panel's operations, before `/api/nodes/{id}`, which would take "self" for an id.
  http.get('/api/nodes/self', ({ response }) => response(200).json(nodeSelf())),
  http.patch('/api/nodes/self', async ({ request, response }) => {
    const body = await readJson(request);
    // Only what the panel may change: its name is changed in the web app.
    const change: Partial<NodeSelfUpdate> = {
      paused: body.paused as boolean | undefined,
      allocation: body.allocation as NodeSelfUpdate['allocation'],
    };
    const found = nodes.find((n) => n.id === selfId());
    if (!found) return response(200).json(example('/api/nodes/self', 'patch', 200));
    const next = applyUpdate(found, change);
    nodes = nodes.map((n) => (n.id === next.id ? next : n));
    return response(200).json(next);
  }),
  http.post('/api/nodes/self/pools', async ({ request, response }) => {
    const body = await readJson(request);
    if (Array.isArray(body.node_ids) && !body.node_ids.includes(selfId()))
      return response(400).json(problem(400, "node_ids must include this node: its control panel pools it with its owner's other nodes"));
    const result = createPool(body);
    return result.status === 201 ? response(201).json(result.pool) : response(result.status).json(result.error);
  }),
  // Leaving dissolves the pool; a pool of the owner's without this node answers 404, an unknown id the spec's 204.
  http.delete('/api/nodes/self/pools/{poolId}', ({ params, response }) => {
    const pool = pools.find((p) => p.id === params.poolId);
    if (pool && !pool.members.some((m) => m.node_id === selfId())) return response(404).json(problem(404, 'Pool not found'));
    pools = pools.filter((p) => p.id !== params.poolId);
    return response(204).empty();
  }),
  http.patch('/api/nodes/{id}', async ({ params, request, response }) => {
    const body = await readJson(request);
    const found = nodes.find((n) => n.id === params.id);
    if (!found) return response(200).json(example('/api/nodes/{id}', 'patch', 200));
    const next = applyUpdate(found, body);
    nodes = nodes.map((n) => (n.id === next.id ? next : n));
    return response(200).json(next);
  }),
  http.delete('/api/nodes/{id}', ({ params, response }) => {
    nodes = nodes.filter((n) => n.id !== params.id);
    return response(204).empty();
  }),
  http.get('/api/nodes/earnings/{id}', ({ params, response }) =>
    response(200).json({ ...example('/api/nodes/earnings/{id}', 'get', 200), node_id: String(params.id) }),
  ),
  http.get('/api/nodes/pools', ({ response }) => response(200).json({ pools })),
  http.post('/api/nodes/pools', async ({ request, response }) => {
    const result = createPool(await readJson(request));
    return result.status === 201 ? response(201).json(result.pool) : response(result.status).json(result.error);
  }),
  http.delete('/api/nodes/pools/{poolId}', ({ params, response }) => {
    pools = pools.filter((p) => p.id !== params.poolId);
    return response(204).empty();
  }),
  http.get('/api/nodes/catalog', ({ response }) => response(200).json(example('/api/nodes/catalog', 'get', 200))),
  // A model file is bytes the spec cannot give an example of: the mocks answer a few (a GGUF file's magic).
  http.get('/api/nodes/catalog/files/{file}', ({ response }) =>
    response.untyped(new Response(new TextEncoder().encode('GGUF'), { headers: { 'Content-Type': 'application/octet-stream' } })),
  ),
  // The agent package is a gzip file the spec cannot give an example of: the mocks answer gzip's magic bytes.
  http.get('/api/nodes/agent/{file}', ({ response }) =>
    response.untyped(new Response(new Uint8Array([0x1f, 0x8b]), { headers: { 'Content-Type': 'application/gzip' } })),
  ),
  http.post('/api/nodes/heartbeat', ({ response }) => response(200).json(example('/api/nodes/heartbeat', 'post', 200))),
  // No job waits on mocks: the long poll answers at once that there is none.
  http.post('/api/nodes/jobs/claim', ({ response }) => response(204).empty()),
  http.post('/api/nodes/jobs/{jobId}/events', ({ response }) => response(200).json(example('/api/nodes/jobs/{jobId}/events', 'post', 200))),
  http.post(
    '/api/nodes/jobs/{jobId}/events/stream',
    () =>
      new HttpResponse(example('/api/nodes/jobs/{jobId}/events/stream', 'post', 200), {
        status: 200,
        headers: { 'Content-Type': 'application/x-ndjson' },
      }),
  ),
  http.post('/api/nodes/jobs/{jobId}/embeddings', ({ response }) => response(204).empty()),
  http.post('/api/nodes/jobs/{jobId}/recomputation', ({ response }) => response(204).empty()),
  http.post('/api/nodes/jobs/{jobId}/return', ({ response }) => response(204).empty()),
];
