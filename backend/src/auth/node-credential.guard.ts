import { type NodeIdentity, ProviderNodesRepository } from '../modules/nodes/provider-nodes.repository';
import { bearerSecret } from './bearer-secret';

export const NODE_CREDENTIAL_PREFIX = 'glb_node_';
export const NODE_CREDENTIAL_INVALID = 'This node credential is invalid or has been revoked. Pair the node again.';

/** Node credentials authenticate the node operations and nothing else (a user's access token does not). */
const nodeCredential = bearerSecret<ProviderNodesRepository, NodeIdentity>({
  prefix: NODE_CREDENTIAL_PREFIX,
  repository: ProviderNodesRepository,
  find: (nodes, hash) => nodes.byCredential(hash),
  message: NODE_CREDENTIAL_INVALID,
});
export const NodeCredentialGuard = nodeCredential.Guard;
/** An operation of the node agent: the node credential guard instead of the users' one. */
export const NodeOperation = nodeCredential.Operation;
/** The authenticated node of a node operation. */
export const CurrentNode = nodeCredential.Current;
