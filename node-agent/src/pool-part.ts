/**
 * The agent's side of pools: its PoolMember (pool-member.ts runs the part, pool-tunnel.ts links the members), the
 * heartbeat's assignments handed to it in order, and what each heartbeat reports of it.
 */
import type { Schemas } from './contract';
import type { PoolMember } from './pool-member';

export class PoolPart {
  /** Pool assignments are applied one after another, off the heartbeat's path (loading a split model takes a while). */
  private applying: Promise<void> = Promise.resolve();

  /** `member`: the node's part in a pool (none in tests that do not pool); `onError`: a failure while applying. */
  constructor(
    private readonly member: PoolMember | null,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The heartbeat's assignment (null: no pool), applied after those before it. */
  assign(assignment: Schemas['PoolAssignment'] | null): void {
    const member = this.member;
    if (!member) return;
    this.applying = this.applying.then(() => member.apply(assignment)).catch((err: unknown) => this.onError(err));
  }

  /** The pooled model this node coordinates now, with the server that generates it. */
  serving(): ReturnType<PoolMember['serving']> {
    return this.member?.serving() ?? null;
  }

  /** A heartbeat's pool fields: the ready models' files, where the tunnel listens, the pool the part is ready for. */
  report(files: Schemas['PoolFile'][]): Pick<Schemas['NodeHeartbeat'], 'files' | 'pool_endpoint' | 'pool_ready'> {
    const member = this.member;
    return member ? { files, pool_endpoint: member.endpoint, pool_ready: member.readyFor } : {};
  }

  /** On the way out: the assignment being applied settles, then the part stops and the tunnel closes. */
  async close(): Promise<void> {
    await this.applying;
    await this.member?.close().catch(() => undefined);
  }
}
