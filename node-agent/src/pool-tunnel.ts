/**
 * The encrypted link between pool members. llama.cpp's RPC protocol is plain TCP with no authentication, so
 * a member's rpc-server listens on loopback only and other members reach it through TLS keyed per pool:
 * a pre-shared key (TLS-PSK) whose identity is the pool id. Node supports PSK on TLS 1.2 only; the one
 * cipher offered (ECDHE-PSK-CHACHA20-POLY1305) adds an ephemeral key exchange, so a leaked pool key does not
 * decrypt recorded traffic.
 *
 *   member:       openTunnelServer  ─ TLS-PSK ─>  pipe to its rpc-server on 127.0.0.1
 *   coordinator:  llama.cpp --rpc 127.0.0.1:<port>  ─>  openTunnelClient  ─ TLS-PSK ─>  member
 */
import { isIP, connect as netConnect, createServer as netCreateServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, createServer as tlsCreateServer, type ConnectionOptions, type TLSSocket, type TlsOptions } from 'node:tls';

type Log = (line: string) => void;

/** What a pool assignment gives a member's tunnel: the pool's key and id, and the local rpc-server. */
export interface TunnelPool {
  /** The pool's pre-shared key, 16-256 bytes of randomness. */
  key: Buffer;
  /** The pool id: the PSK identity both ends present. */
  identity: string;
  /** The rpc-server this member runs; a loopback address, as it has no authentication. */
  target: { host: string; port: number };
}

export type TunnelServerOptions = { host: string; port: number; log?: Log } & (
  TunnelPool | { key?: undefined; identity?: undefined; target?: undefined }
);

export interface TunnelServer {
  /** `host:port` the server listens on (the actual port when 0 was asked), for the pool's members. */
  address: string;
  port: number;
  /**
   * A new (or no) pool assignment: from now on only peers with the new key and identity get through, to
   * the new target; connections opened under the previous assignment are closed. null accepts nothing.
   */
  setPool(pool: TunnelPool | null): void;
  /** Stops listening and closes every tunnelled connection. */
  close(): Promise<void>;
}

export interface TunnelClientOptions {
  /** The member's tunnel server, `host:port` (`[v6]:port` for IPv6). */
  remote: string;
  key: Buffer;
  identity: string;
  log?: Log;
}

export interface TunnelClient {
  /** Port on 127.0.0.1 whose every connection is tunnelled to `remote` (what llama.cpp's --rpc is given). */
  port: number;
  /**
   * `cb` runs when an established tunnelled connection is closed by the remote side (member down, its
   * rpc-server gone, network error) rather than by the local side or close(). Returns an unsubscribe.
   */
  onPeerClosed(cb: (reason: string) => void): () => void;
  close(): Promise<void>;
}

/** Both ends offer exactly this: PSK on TLS 1.2 (the only version Node does PSK on) with ECDHE. */
const TLS_PSK: Pick<TlsOptions, 'ciphers' | 'minVersion' | 'maxVersion'> = {
  ciphers: 'ECDHE-PSK-CHACHA20-POLY1305',
  minVersion: 'TLSv1.2',
  maxVersion: 'TLSv1.2',
};
/** A peer that opens a connection and never finishes the handshake is dropped after this long. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** TCP keep-alive on idle tunnelled connections, so a member that vanished without a FIN is noticed. */
const KEEPALIVE_MS = 15_000;
const MAX_IDENTITY_BYTES = 128;
/** How long one side of a tunnelled connection may stay open after the other ended. */
const LINGER_MS = 5_000;

function checkPool(key: Buffer, identity: string): void {
  if (!Buffer.isBuffer(key) || key.length < 16 || key.length > 256) throw new RangeError('the pool key must be 16-256 bytes');
  const n = Buffer.byteLength(identity);
  if (n === 0 || n > MAX_IDENTITY_BYTES) throw new RangeError(`the pool identity must be 1-${MAX_IDENTITY_BYTES} bytes`);
}

function checkTarget({ host, port }: TunnelPool['target']): void {
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback) throw new RangeError(`the tunnel target must be on loopback, got ${host}`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`bad target port ${port}`);
}

function formatAddress(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

function parseAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) throw new RangeError(`expected host:port, got ${address}`);
  return { host: m[1] ?? m[2]!, port };
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Joins two sockets both ways with back-pressure. The first end, error or close on either side is reported
 * once (`first` says which side); an end is passed on to the other side after the bytes in flight, an
 * error destroys both, and whatever is still open LINGER_MS after an end is destroyed, so no half-open
 * socket outlives its partner (llama.cpp RPC never half-closes).
 */
function splice(a: Socket, b: Socket, onFirst: (first: 'a' | 'b', reason: string) => void): void {
  let reported = false;
  const report = (first: 'a' | 'b', reason: string): void => {
    if (reported) return;
    reported = true;
    onFirst(first, reason);
    setTimeout(() => {
      a.destroy();
      b.destroy();
    }, LINGER_MS).unref();
  };
  a.pipe(b);
  b.pipe(a);
  for (const [side, self, other] of [
    ['a', a, b],
    ['b', b, a],
  ] as const) {
    self.on('end', () => report(side, 'ended'));
    self.on('error', (err) => {
      report(side, errorText(err));
      a.destroy();
      b.destroy();
    });
    self.on('close', () => {
      report(side, 'closed');
      other.end();
    });
  }
}

function track(live: Set<Socket>, s: Socket): void {
  live.add(s);
  s.once('close', () => live.delete(s));
}

function tune(s: Socket): void {
  s.setNoDelay(true); // RPC is one small request after another: latency, not throughput
  s.setKeepAlive(true, KEEPALIVE_MS);
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * A member's side: a TLS-PSK listener that lets through only peers presenting the pool's identity with the
 * pool's key, each to a new connection to the local rpc-server. Without a pool it completes no handshake.
 */
export async function openTunnelServer(opts: TunnelServerOptions): Promise<TunnelServer> {
  const log = opts.log ?? (() => undefined);
  let pool: TunnelPool | null = null;
  const live = new Set<Socket>();
  /** The assignment each handshake was keyed with: a pool change must not let an older one through. */
  const keyedWith = new WeakMap<TLSSocket, TunnelPool>();

  const setPool = (next: TunnelPool | null): void => {
    if (next) {
      checkPool(next.key, next.identity);
      checkTarget(next.target);
    }
    pool = next ? { key: Buffer.from(next.key), identity: next.identity, target: { ...next.target } } : null;
    for (const s of live) s.destroy();
  };
  if (opts.key !== undefined) setPool({ key: opts.key, identity: opts.identity, target: opts.target });

  const server = tlsCreateServer({
    ...TLS_PSK,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    pskCallback: (socket: TLSSocket, identity: string) => {
      const p = pool;
      if (!p || identity !== p.identity) return null; // handshake fails: unknown peer
      keyedWith.set(socket, p);
      return p.key;
    },
  });
  server.on('secureConnection', (peer: TLSSocket) => {
    const p = keyedWith.get(peer);
    if (!p || p !== pool) {
      peer.destroy();
      return;
    }
    tune(peer);
    const target = netConnect({ host: p.target.host, port: p.target.port });
    tune(target);
    track(live, peer);
    track(live, target);
    const from = formatAddress(peer.remoteAddress ?? '?', peer.remotePort ?? 0);
    splice(peer, target, (first, reason) => {
      if (reason !== 'ended' && reason !== 'closed') log(`pool tunnel: ${from} ${first === 'a' ? 'peer' : 'rpc-server'}: ${reason}`);
    });
  });
  // Raw connections too, so close() need not wait for handshakes in progress.
  server.on('connection', (raw: Socket) => track(live, raw));
  server.on('tlsClientError', (err, socket) => {
    log(`pool tunnel: refused ${socket.remoteAddress ?? '?'}: ${errorText(err)}`);
    socket.destroy();
  });
  server.on('error', (err) => log(`pool tunnel server: ${errorText(err)}`));

  const port = await listen(server, opts.host, opts.port);
  return {
    address: formatAddress(opts.host, port),
    port,
    setPool,
    close: () =>
      new Promise<void>((resolve) => {
        pool = null;
        server.close(() => resolve());
        for (const s of live) s.destroy();
      }),
  };
}

/**
 * The coordinator's side of one member: a plain TCP listener on 127.0.0.1 (for llama.cpp's RPC client)
 * whose every connection is carried over a new TLS-PSK connection to the member's tunnel server.
 */
export async function openTunnelClient(opts: TunnelClientOptions): Promise<TunnelClient> {
  const log = opts.log ?? (() => undefined);
  checkPool(opts.key, opts.identity);
  const remote = parseAddress(opts.remote);
  const key = Buffer.from(opts.key);
  const listeners = new Set<(reason: string) => void>();
  const live = new Set<Socket>();
  let closing = false;

  const tlsOptions: ConnectionOptions = {
    ...TLS_PSK,
    host: remote.host,
    port: remote.port,
    pskCallback: () => ({ psk: key, identity: opts.identity }),
    // No certificate in PSK: the key is the authentication; the default check would demand one.
    checkServerIdentity: () => undefined,
  };

  const server = netCreateServer((local) => {
    if (closing) {
      local.destroy();
      return;
    }
    tune(local);
    const tunnel = tlsConnect(tlsOptions);
    tune(tunnel);
    let established = false;
    tunnel.once('secureConnect', () => (established = true));
    track(live, local);
    track(live, tunnel);
    splice(local, tunnel, (first, reason) => {
      if (closing) return;
      if (!established) {
        log(`pool tunnel to ${opts.remote}: no tunnel: ${reason}`);
      } else if (first === 'b') {
        log(`pool tunnel to ${opts.remote} closed by the peer: ${reason}`);
        for (const cb of listeners) {
          try {
            cb(reason);
          } catch (err) {
            log(`pool tunnel: onPeerClosed callback failed: ${errorText(err)}`);
          }
        }
      }
    });
  });
  server.on('error', (err) => log(`pool tunnel client: ${errorText(err)}`));

  const port = await listen(server, '127.0.0.1', 0);
  return {
    port,
    onPeerClosed(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        for (const s of live) s.destroy();
      }),
  };
}
