/**
 * A node's part in a pool, as its heartbeat assigns it. A shard runs llama.cpp's rpc-server on loopback behind the
 * pool's TLS tunnel; the coordinator opens a tunnel to every shard and runs llama-server with the model's first
 * layers on itself and the rest on the shards' RPC devices. Either reports ready only while its part runs.
 * The tunnel's listener is open only while the node has an assignment: a node in no pool listens on nothing.
 */
import { join } from 'node:path';
import type { Schemas } from './contract';
import { freePort, RPC_SERVER, spawnTied, type Tied, waitForPort } from './llama-process';
import { LlamaServer } from './llama-server';
import type { LocalModel } from './machine';
import { openTunnelClient, openTunnelServer, type TunnelClient, type TunnelServer } from './pool-tunnel';

type Assignment = Schemas['PoolAssignment'];

export interface PoolMemberDeps {
  log: (line: string) => void;
  /** Where this node's tunnel listens for the other members (a private address). */
  listen: { host: string; port: number };
  /** The directory of llama.cpp's RPC build (found or built on first use). */
  bin: () => Promise<string>;
  threads: () => number;
  /** This node's id (null before it pairs). */
  nodeId: () => string | null;
  /** The models ready on this machine (they change as the agent pulls). */
  models: () => LocalModel[];
  /** Something changed that the API should hear of at once (ready or not, where the tunnel listens). */
  onChange: () => void;
}

/**
 * What the running part was set up for: a new assignment that differs restarts it. The coordinator (listed first)
 * never dials its own tunnel, so its own endpoint appearing is no reason to restart it.
 */
const shapeOf = (a: Assignment): string =>
  JSON.stringify([
    a.pool_id,
    a.role,
    a.key,
    a.role === 'coordinator' ? a.members.map((m, i) => [m.node_id, i === 0 ? null : m.endpoint, m.layers]) : null,
  ]);

/** The coordinator can dial every shard only once each has said where its tunnel listens. */
const shardsReachable = (a: Assignment): boolean => a.members.slice(1).every((m) => m.endpoint !== null);

export class PoolMember {
  private tunnel: TunnelServer | null = null;
  /** The port the tunnel last listened on: reopened on it, so a pool that comes back finds this member where it was. */
  private lastPort: number | null = null;
  private shape: string | null = null;
  private assignment: Assignment | null = null;
  private rpcServer: Tied | null = null;
  private clients: TunnelClient[] = [];
  private server: LlamaServer | null = null;
  private starting: Promise<void> | null = null;
  private ready: string | null = null;
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly deps: PoolMemberDeps) {}

  /**
   * Opens the tunnel's listener at the node's first assignment, and asks for a heartbeat at once: the platform
   * learns where it listens now, not a heartbeat later, and no coordinator waits on it for a round.
   */
  private async openTunnel(): Promise<boolean> {
    const { host, port } = this.deps.listen;
    const open = (p: number) => openTunnelServer({ host, port: p, log: this.deps.log });
    try {
      this.tunnel = await (port === 0 && this.lastPort ? open(this.lastPort).catch(() => open(0)) : open(port));
    } catch (err) {
      this.deps.log(
        `Could not open the pool tunnel on ${host}:${port}: ${err instanceof Error ? err.message : String(err)}; trying again at the next heartbeat`,
      );
      return false;
    }
    this.lastPort = this.tunnel.port;
    this.deps.log(`Pool tunnel listening on ${this.tunnel.address}`);
    this.deps.onChange();
    return true;
  }

  private async closeTunnel(why: string): Promise<void> {
    const tunnel = this.tunnel;
    if (!tunnel) return;
    this.tunnel = null;
    await tunnel.close();
    this.deps.log(`Pool tunnel closed${why}`);
  }

  get endpoint(): string | null {
    return this.tunnel?.address ?? null;
  }

  /** The pool the node runs its part for now. */
  get readyFor(): string | null {
    return this.ready;
  }

  /** The pooled model this coordinator serves now, with the server that generates it. */
  serving(): { modelId: string; server: LlamaServer } | null {
    return this.server && this.ready && this.assignment ? { modelId: this.assignment.model_id, server: this.server } : null;
  }

  /** Applies the heartbeat's assignment (null: no pool): starts, restarts or stops the part as needed. */
  async apply(next: Assignment | null): Promise<void> {
    await this.starting;
    const shape = next ? shapeOf(next) : null;
    if (shape !== this.shape) {
      // While the pool forms nothing runs yet, and members' endpoints arriving restart nothing.
      if (!next && this.shape) this.deps.log('Left the pool');
      else if (this.rpcServer || this.server) this.deps.log('Pool assignment changed: restarting this node’s part');
      await this.teardown();
      this.shape = shape;
      this.assignment = next;
      this.failures = 0;
      this.retryAt = 0;
    } else this.assignment = next;
    if (!next) return this.closeTunnel(': this node is in no pool now');
    if (!this.tunnel && !(await this.openTunnel())) return;
    if (next.role === 'shard' && !this.rpcServer) this.starting = this.startShard(next);
    // The coordinator starts once every other member is ready and reachable, and again after a failure (with a growing pause).
    if (next.role === 'coordinator' && !this.server && next.healthy && shardsReachable(next) && Date.now() >= this.retryAt)
      this.starting = this.startCoordinator(next);
    await this.starting?.catch(() => undefined);
    this.starting = null;
  }

  async close(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.teardown();
    await this.closeTunnel('');
  }

  private async startShard(a: Assignment): Promise<void> {
    const bin = await this.deps.bin();
    const port = await freePort();
    const threads = this.deps.threads();
    const proc = spawnTied(join(bin, RPC_SERVER), ['-H', '127.0.0.1', '-p', String(port), '-t', String(threads)], () => undefined);
    this.rpcServer = proc;
    const up = new AbortController();
    void proc.exited.then((why) => {
      up.abort(new Error(`rpc-server ${why}`));
      if (this.rpcServer !== proc) return;
      this.deps.log(`The pool's RPC server ${why}; restarting it at the next heartbeat`);
      this.rpcServer = null;
      this.setReady(null);
    });
    try {
      await waitForPort(port, up.signal);
    } catch (err) {
      this.deps.log(`Could not start the pool's RPC server: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.tunnel!.setPool({ key: Buffer.from(a.key, 'hex'), identity: a.pool_id, target: { host: '127.0.0.1', port } });
    const nodeId = this.deps.nodeId();
    const mine = a.members.find((m) => m.node_id === nodeId);
    this.deps.log(
      `Pool ${a.pool_id.slice(0, 8)}: serving ${mine ? `${mine.layers} layers of ` : ''}${a.model_id} for its coordinator (${threads} ${threads === 1 ? 'thread' : 'threads'})`,
    );
    this.setReady(a.pool_id);
  }

  private async startCoordinator(a: Assignment): Promise<void> {
    const local = this.deps.models().find((m) => m.id === a.model_id);
    if (!local) {
      this.deps.log(`Pool ${a.pool_id.slice(0, 8)}: ${a.model_id} is not on this machine`);
      return;
    }
    const [own, ...shards] = a.members;
    try {
      const bin = await this.deps.bin();
      const key = Buffer.from(a.key, 'hex');
      for (const s of shards) {
        if (!s.endpoint) throw new Error(`member ${s.node_id.slice(0, 8)} has not said where its tunnel listens`);
        const client = await openTunnelClient({ remote: s.endpoint, key, identity: a.pool_id, log: this.deps.log });
        // A member gone (its tunnel closed) aborts llama-server's next step anyway: stop serving at once instead.
        client.onPeerClosed((why) => void this.lost(`member ${s.node_id.slice(0, 8)} dropped (${why})`));
        this.clients.push(client);
      }
      this.deps.log(
        `Pool ${a.pool_id.slice(0, 8)}: loading ${a.model_id} split ${a.members.map((m) => m.layers).join(' / ')} layers over ${a.members.length} members…`,
      );
      const server = await LlamaServer.start(
        bin,
        {
          modelPath: local.path,
          threads: this.deps.threads(),
          contextSize: Math.min(local.contextLength, 4096),
          rpc: this.clients.map((c) => `127.0.0.1:${c.port}`),
          layers: [own!.layers, ...shards.map((s) => s.layers)],
        },
        this.deps.log,
      );
      this.server = server;
      void server.exited.then((why) => {
        if (this.server === server) void this.lost(`llama-server ${why}`);
      });
      this.failures = 0;
      this.deps.log(`Pool ${a.pool_id.slice(0, 8)}: serving ${a.model_id}`);
      this.setReady(a.pool_id);
    } catch (err) {
      this.failures++;
      this.retryAt = Date.now() + Math.min(30_000, 1_000 * 2 ** this.failures);
      this.deps.log(`Pool ${a.pool_id.slice(0, 8)}: cannot serve yet: ${err instanceof Error ? err.message : String(err)}`);
      await this.stopCoordinator();
    }
  }

  /** The split broke (a member or llama-server gone): stop serving; the next healthy assignment starts it again. */
  private async lost(why: string): Promise<void> {
    if (!this.server && !this.clients.length) return;
    this.deps.log(`Pool degraded: ${why}; stopped serving until every member is back`);
    this.retryAt = Date.now() + 1_000;
    await this.stopCoordinator();
  }

  private async stopCoordinator(): Promise<void> {
    const server = this.server;
    const clients = this.clients;
    this.server = null;
    this.clients = [];
    this.setReady(null);
    await server?.stop();
    await Promise.all(clients.map((c) => c.close()));
  }

  private async teardown(): Promise<void> {
    this.tunnel?.setPool(null);
    await this.stopCoordinator();
    const rpc = this.rpcServer;
    this.rpcServer = null;
    await rpc?.stop();
    this.setReady(null);
  }

  private setReady(poolId: string | null): void {
    if (this.ready === poolId) return;
    this.ready = poolId;
    this.deps.onChange();
  }
}
