import { BadRequestException, Injectable, UnauthorizedException } from '@nestjs/common';
import { NODE_CREDENTIAL_INVALID } from '../../auth/node-credential.guard';
import type { RequestBody, Schemas } from '../../contract/types';
import { WalletService } from '../wallet/wallet.service';
import { NodesService } from './nodes.service';
import { PoolsService } from './pools.service';
import type { NodeIdentity } from './provider-nodes.repository';

export const POOL_WITHOUT_SELF = "node_ids must include this node: its control panel pools it with its owner's other nodes";

/**
 * The node's own control panel (the desktop app on its machine, with the node's credential): the owner's view of this
 * node and the owner's controls over it, limited to what concerns this node; nothing of the account beyond its balance.
 */
@Injectable()
export class NodeSelfService {
  constructor(
    private readonly nodes: NodesService,
    private readonly pools: PoolsService,
    private readonly wallet: WalletService,
  ) {}

  async get(node: NodeIdentity): Promise<Schemas['NodeSelf']> {
    const owner = node.owner_id;
    const { nodes } = await this.nodes.list(owner);
    const self = nodes.find((n) => n.id === node.id);
    // Revoked between the credential check and now.
    if (!self) throw new UnauthorizedException(NODE_CREDENTIAL_INVALID);
    return {
      node: self,
      earnings: await this.nodes.earnings(owner, node.id),
      by_model: await this.nodes.earningsByModel(owner, node.id),
      balance: await this.wallet.balance(owner, owner),
      owner_nodes: nodes,
      pools: await this.pools.ofNode(node.id),
    };
  }

  /** As the owner's change (a suspended node cannot resume itself), limited to pause and allocation by the spec. */
  update(node: NodeIdentity, body: RequestBody<'updateNodeSelf'>): Promise<Schemas['Node']> {
    return this.nodes.update(node.owner_id, node.id, { paused: body.paused, allocation: body.allocation });
  }

  createPool(node: NodeIdentity, body: RequestBody<'createNodeSelfPool'>): Promise<Schemas['Pool']> {
    if (!body.node_ids.includes(node.id)) throw new BadRequestException(POOL_WITHOUT_SELF);
    return this.pools.create(node.owner_id, body);
  }

  leavePool(node: NodeIdentity, poolId: string): Promise<void> {
    return this.pools.leave(node, poolId);
  }
}
