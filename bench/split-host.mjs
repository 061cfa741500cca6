#!/usr/bin/env node
// One host's part of bench/split.mjs, run as a child process (inside a network namespace when there is one), so
// each host's processes live in that host's namespace. The parent writes one JSON line per command to stdin and
// reads one JSON line per answer from stdout; when stdin closes (the parent ended, however it ended) this host
// stops its llama.cpp processes and exits.
//   node bench/split-host.mjs shard '{"threads":1,"bind":"10.214.7.3","tunnel":{"key":"<hex>","identity":"bench"}}'
//     llama.cpp's rpc-server on this host's loopback; with `tunnel`, the platform's TLS-PSK tunnel server on `bind`
//     in front of it (what a pool member runs); without, the bare rpc-server (the loopback reference).
//     Answers {"ready":"host:port"}: the address a coordinator's --rpc (or tunnel client) is given.
//   node bench/split-host.mjs coordinator '{"bin":…,"modelPath":…,"threads":1,"contextSize":1024,"layers":[8,8,8],
//                                          "shards":["host:port",…],"tunnel":{…}|null}'
//     llama-server with its layers local and the rest on the shards (through tunnel clients when `tunnel`), as a
//     pool's coordinator runs it. Answers {"ready":true}, then {"run":{…}} to each {"messages":[…],"maxTokens":n}.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');

/** The agent's TypeScript loader, a devDependency of the node-agent workspace, resolved from there. */
const AGENT_LOADER = '@swc-node/register';

/** A node agent TypeScript module, compiled on load by the agent's loader (as `npm run node` runs the agent). */
export function agentModule(path) {
  process.env.SWC_NODE_PROJECT ??= join(root, 'node-agent', 'tsconfig.json');
  const require = createRequire(join(root, 'node-agent', 'package.json'));
  require(AGENT_LOADER);
  return require(join(root, 'node-agent', 'src', path));
}

const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const errorText = (err) => (err instanceof Error ? err.message : String(err));

async function shard({ bin, threads, bind, tunnel }) {
  const { freePort, RPC_SERVER, spawnTied, waitForPort } = agentModule('llama-process.ts');
  const { openTunnelServer } = agentModule('pool-tunnel.ts');
  const port = await freePort();
  const lines = [];
  const rpc = spawnTied(join(bin, RPC_SERVER), ['-H', '127.0.0.1', '-p', String(port), '-t', String(threads)], (l) => lines.push(l));
  const up = new AbortController();
  void rpc.exited.then((why) => up.abort(new Error(`rpc-server ${why}: ${lines.slice(-3).join(' | ')}`)));
  await waitForPort(port, up.signal);
  const server = tunnel
    ? await openTunnelServer({
        host: bind,
        port: 0,
        key: Buffer.from(tunnel.key, 'hex'),
        identity: tunnel.identity,
        target: { host: '127.0.0.1', port },
      })
    : null;
  say({ ready: server ? server.address : `127.0.0.1:${port}` });
  return async () => {
    await server?.close();
    await rpc.stop();
  };
}

async function coordinator({ bin, modelPath, threads, contextSize, layers, shards, tunnel }) {
  const { LlamaServer } = agentModule('llama-server.ts');
  const { openTunnelClient } = agentModule('pool-tunnel.ts');
  const clients = [];
  for (const remote of tunnel ? shards : []) {
    clients.push(await openTunnelClient({ remote, key: Buffer.from(tunnel.key, 'hex'), identity: tunnel.identity }));
  }
  const rpc = tunnel ? clients.map((c) => `127.0.0.1:${c.port}`) : shards;
  const started = performance.now();
  const server = await LlamaServer.start(bin, { modelPath, threads, contextSize, rpc, layers: rpc.length ? layers : [] }, (l) =>
    process.stderr.write(`${l}\n`),
  );
  say({ ready: true, loadMs: performance.now() - started });
  for await (const line of createInterface({ input: process.stdin })) {
    const { messages, maxTokens } = JSON.parse(line);
    const ask = () => server.generate({ messages, sampling: { max_tokens: maxTokens, temperature: 0, top_p: 1, seed: 1 } });
    // A request sent the moment the previous reply's stream ended can meet llama-server closing that keep-alive
    // connection ("fetch failed: other side closed"): nothing was generated yet, so it is asked again once.
    const r = await ask().catch(async (err) => {
      if (!/fetch failed/.test(errorText(err))) throw err;
      process.stderr.write(`retrying once: ${errorText(err)}: ${errorText(err.cause)}\n`);
      await new Promise((done) => setTimeout(done, 100));
      return ask();
    });
    say({
      run: {
        text: r.text,
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        firstTokenMs: r.firstTokenMs,
        durationMs: r.durationMs,
      },
    });
  }
  return async () => {
    await server.stop();
    await Promise.all(clients.map((c) => c.close()));
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [role, json] = process.argv.slice(2);
  const roles = { shard, coordinator };
  if (!roles[role]) throw new Error(`usage: split-host.mjs shard|coordinator '<json>'`);
  let stop = async () => undefined;
  const quit = async (code) => {
    await stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGTERM', () => void quit(0));
  process.on('SIGINT', () => void quit(0));
  try {
    stop = await roles[role](JSON.parse(json));
  } catch (err) {
    say({ error: errorText(err) });
    await quit(1);
  }
  // A shard serves until its parent closes stdin; a coordinator's command loop ends there too.
  if (role === 'shard') process.stdin.on('end', () => void quit(0)).resume();
  else await quit(0);
}
