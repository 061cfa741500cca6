import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { NodeIdentity, ProviderNodesRepository } from '../modules/nodes/provider-nodes.repository';

export const IS_NODE_OPERATION = 'isNodeOperation';

export const NODE_CREDENTIAL_PREFIX = 'glb_node_';
const BEARER = /^Bearer (glb_node_[A-Za-z0-9_-]{16,200})$/;
const NODE_AUTH_MESSAGE = 'This node credential is invalid or has been revoked. Pair the node again.';

/** Credentials are random and high-entropy: a plain SHA-256 is a safe and fast lookup key for them. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Node credentials authenticate the node operations and nothing else (a user's access token does not). */
@Injectable()
export class NodeCredentialGuard implements CanActivate {
  constructor(private readonly nodes: ProviderNodesRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { node?: NodeIdentity }>();
    const credential = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const node = credential ? await this.nodes.byCredential(hashSecret(credential)) : undefined;
    if (!node) throw new UnauthorizedException(NODE_AUTH_MESSAGE);
    req.node = node;
    return true;
  }
}

/** An operation of the node agent: the node credential guard instead of the users' one. */
export const NodeOperation = () => applyDecorators(SetMetadata(IS_NODE_OPERATION, true), UseGuards(NodeCredentialGuard));

/** The authenticated node of a node operation. */
export const CurrentNode = createParamDecorator((_: unknown, ctx: ExecutionContext): NodeIdentity => {
  return ctx.switchToHttp().getRequest<{ node: NodeIdentity }>().node;
});
