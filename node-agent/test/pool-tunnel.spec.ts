/**
 * The pool tunnel over real sockets on loopback: client → TLS-PSK → server → an echo target standing in
 * for a member's rpc-server. The target counts every connection it gets, so "nothing got through" means
 * zero connections, not merely zero bytes echoed.
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { openTunnelClient, openTunnelServer, type TunnelClient, type TunnelServer } from '../src/pool-tunnel';

interface Echo {
  port: number;
  connections: number;
  bytes: number;
  sockets: Set<Socket>;
  server: Server;
}

async function echoTarget(): Promise<Echo> {
  const echo: Echo = { port: 0, connections: 0, bytes: 0, sockets: new Set(), server: createServer() };
  echo.server.on('connection', (s) => {
    echo.connections++;
    echo.sockets.add(s);
    s.on('close', () => echo.sockets.delete(s));
    s.on('error', () => undefined);
    s.on('data', (d: Buffer) => {
      echo.bytes += d.length;
      s.write(d);
    });
  });
  await new Promise<void>((r) => echo.server.listen(0, '127.0.0.1', r));
  echo.port = (echo.server.address() as AddressInfo).port;
  return echo;
}

/** Connects to `port`, writes `payload`, and collects what comes back until the socket closes or `want` bytes arrived. */
function exchange(port: number, payload: Buffer, want = payload.length, timeoutMs = 5_000): Promise<{ received: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const s = connect(port, '127.0.0.1');
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      s.destroy();
      resolve({ received: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      got += d.length;
      if (got >= want && want > 0) done(false);
    });
    s.on('error', () => undefined);
    s.on('close', () => done(true));
    s.write(payload);
  });
}

const KEY = randomBytes(32);
const POOL = 'pool-7f3c';
const cleanup: (() => Promise<unknown>)[] = [];
const logs: string[] = [];
const log = (line: string): void => void logs.push(line);

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  logs.length = 0;
});

async function setUp(pool = true): Promise<{ echo: Echo; server: TunnelServer }> {
  const echo = await echoTarget();
  cleanup.push(() => new Promise((r) => echo.server.close(r)).then(() => echo.sockets.forEach((s) => s.destroy())));
  const server = await openTunnelServer(
    pool
      ? { host: '127.0.0.1', port: 0, key: KEY, identity: POOL, target: { host: '127.0.0.1', port: echo.port }, log }
      : { host: '127.0.0.1', port: 0, log },
  );
  cleanup.push(() => server.close());
  return { echo, server };
}

async function client(server: TunnelServer, key = KEY, identity = POOL): Promise<TunnelClient> {
  const c = await openTunnelClient({ remote: server.address, key, identity, log });
  cleanup.push(() => c.close());
  return c;
}

const until = async (cond: () => boolean, ms = 5_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

it('carries bytes both ways, client → server → target and back, on several connections at once', async () => {
  const { echo, server } = await setUp();
  expect(server.address).toBe(`127.0.0.1:${server.port}`);
  const c = await client(server);
  const payloads = [randomBytes(1), randomBytes(200_000), randomBytes(4096)];
  const results = await Promise.all(payloads.map((p) => exchange(c.port, p)));
  results.forEach((r, i) => expect(r.received.equals(payloads[i]!)).toBe(true));
  expect(echo.connections).toBe(3);
  expect(echo.bytes).toBe(payloads.reduce((n, p) => n + p.length, 0));
});

it('negotiates TLS 1.2 with ECDHE-PSK-CHACHA20-POLY1305 (forward secrecy), no certificate involved', async () => {
  const { server } = await setUp();
  const s = tlsConnect({
    host: '127.0.0.1',
    port: server.port,
    ciphers: 'ECDHE-PSK-CHACHA20-POLY1305',
    maxVersion: 'TLSv1.2',
    pskCallback: () => ({ psk: KEY, identity: POOL }),
    checkServerIdentity: () => undefined,
  });
  await new Promise((r) => s.once('secureConnect', r));
  expect(s.getProtocol()).toBe('TLSv1.2');
  expect(s.getCipher().name).toBe('ECDHE-PSK-CHACHA20-POLY1305');
  expect(s.getPeerCertificate()).toEqual({});
  s.destroy();
});

it('lets nothing through for a client with the wrong key: its connection is closed, the target sees no connection', async () => {
  const { echo, server } = await setUp();
  const c = await client(server, randomBytes(32));
  const peerClosed = jest.fn();
  c.onPeerClosed(peerClosed);
  const r = await exchange(c.port, Buffer.from('RPC hello'));
  expect(r.closed).toBe(true);
  expect(r.received).toHaveLength(0);
  expect(echo.connections).toBe(0);
  expect(peerClosed).not.toHaveBeenCalled(); // no tunnel was ever established
  await until(() => logs.some((l) => l.includes('refused')));
});

it('lets nothing through for a client with the wrong identity (right key)', async () => {
  const { echo, server } = await setUp();
  const c = await client(server, KEY, 'pool-other');
  const r = await exchange(c.port, Buffer.from('RPC hello'));
  expect(r.closed).toBe(true);
  expect(r.received).toHaveLength(0);
  expect(echo.connections).toBe(0);
});

it('lets nothing through for plain TCP (no TLS) to the server', async () => {
  const { echo, server } = await setUp();
  // Bytes that would be a valid llama.cpp RPC request if they reached the rpc-server.
  const r = await exchange(server.port, Buffer.from([0x0e, 0, 0, 0, 0, 0, 0, 0, 0]), 1_000_000);
  expect(r.closed).toBe(true);
  expect(r.received.subarray(0, 1).toString('hex')).not.toBe('0e'); // at most a TLS alert, never an echo
  expect(echo.connections).toBe(0);
});

it('accepts nothing before a pool is set, then only the current pool’s key; a new pool closes the old connections', async () => {
  const { echo, server } = await setUp(false);
  const c = await client(server);
  expect((await exchange(c.port, Buffer.from('x'))).received).toHaveLength(0);
  expect(echo.connections).toBe(0);

  server.setPool({ key: KEY, identity: POOL, target: { host: '127.0.0.1', port: echo.port } });
  expect((await exchange(c.port, Buffer.from('ping'))).received.toString()).toBe('ping');

  // A long-lived connection under the first assignment…
  const held = connect(c.port, '127.0.0.1');
  held.on('error', () => undefined);
  const heldClosed = new Promise((r) => held.on('close', r));
  held.write('a');
  await new Promise((r) => held.once('data', r));
  const closedByPeer = new Promise<string>((r) => c.onPeerClosed(r));

  // …is cut when the pool changes, and the old key no longer gets through.
  const newKey = randomBytes(32);
  server.setPool({ key: newKey, identity: 'pool-next', target: { host: '127.0.0.1', port: echo.port } });
  await heldClosed;
  await expect(closedByPeer).resolves.toEqual(expect.any(String));
  const before = echo.connections;
  expect((await exchange(c.port, Buffer.from('x'))).received).toHaveLength(0);
  expect(echo.connections).toBe(before);
  const c2 = await client(server, newKey, 'pool-next');
  expect((await exchange(c2.port, Buffer.from('pong'))).received.toString()).toBe('pong');

  server.setPool(null);
  expect((await exchange(c2.port, Buffer.from('x'))).received).toHaveLength(0);
});

it('fires onPeerClosed when the target closes a tunnelled connection, and when the server goes away', async () => {
  const { echo, server } = await setUp();
  const c = await client(server);
  const reasons: string[] = [];
  c.onPeerClosed((r) => reasons.push(r));

  const open = (): Promise<Socket> =>
    new Promise((resolve) => {
      const s = connect(c.port, '127.0.0.1');
      s.on('error', () => undefined);
      s.write('hi');
      s.once('data', () => resolve(s));
    });

  // The local side closing is not the peer dropping.
  const mine = await open();
  mine.destroy();
  await until(() => echo.sockets.size === 0);
  await new Promise((r) => setTimeout(r, 50));
  expect(reasons).toHaveLength(0);

  // The rpc-server drops the connection: the local socket closes and the callback fires.
  const s1 = await open();
  const s1Closed = new Promise((r) => s1.on('close', r));
  for (const s of echo.sockets) s.destroy();
  await s1Closed;
  await until(() => reasons.length === 1);

  // The whole member goes away.
  const s2 = await open();
  const s2Closed = new Promise((r) => s2.on('close', r));
  await server.close();
  await s2Closed;
  await until(() => reasons.length === 2);
});

it('refuses weak keys, empty identities and a target off loopback', async () => {
  await expect(openTunnelClient({ remote: '127.0.0.1:1', key: randomBytes(8), identity: POOL })).rejects.toThrow(/16-256 bytes/);
  await expect(openTunnelClient({ remote: '127.0.0.1:1', key: KEY, identity: '' })).rejects.toThrow(/identity/);
  await expect(openTunnelClient({ remote: 'nonsense', key: KEY, identity: POOL })).rejects.toThrow(/host:port/);
  await expect(openTunnelServer({ host: '127.0.0.1', port: 0, key: KEY, identity: POOL, target: { host: '10.0.0.2', port: 50052 } })).rejects.toThrow(
    /loopback/,
  );
});
