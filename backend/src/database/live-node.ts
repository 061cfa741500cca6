/** SQL that repositories of several rooms share about the nodes table (inference, nodes, trust, system). */

/**
 * SQL for "node n is live": not stopped, not revoked, and its last call younger than the live window (bound as
 * `$param`, from `config.inference.nodeLiveSeconds`). Every query that counts live nodes uses it.
 */
export const liveNode = (n: string, param: string) =>
  `(${n}.stopped_at IS NULL AND ${n}.revoked_at IS NULL AND ${n}.last_seen_at > now() - make_interval(secs => ${param}))`;
